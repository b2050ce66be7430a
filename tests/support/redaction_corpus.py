"""The credential corpus of ``tests/redaction/test_corpus.py`` and ``bench/bench_redaction.py``.

Every value below is made up, in the shape the vendor issues. A :class:`Case` is one way an agent
may print a credential: the text, the secret part that must not survive, and what must still be
readable afterwards (the key or header name).
"""

# ruff: noqa: E501, RUF001  (a table reads best one case per line; the CJK line is deliberate)
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Case:
    family: str
    id: str
    text: str
    secret: str
    kept: tuple[str, ...] = ()


TOKEN = "q7Zp2Lk9Xv4Rt8Wm3Nb6Yc1"
B64 = "Yjk4ZjJjNmE3ZTFkNGI1ODljM2YwYTZlN2I4YzlkMGU="
PEM_B64 = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
JWT = (
    "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZ2VudC03IiwiZXhwIjoxOTAwMDAwMDAwfQ."
    "Qm9ndXNTaWduYXR1cmVGb3JUZXN0aW5nT25seV9fX19fX18"
)
AWS_ID = "AKIAQX4EXAMPLE7ZK2PD"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"
AZURE_KEY = "Zm9vYmFyYmF6cXV4K3NlY3JldC9rZXk9PXRlc3Rpbmc5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OQ=="
SAS_SIG = "dGhpcyUyQmlzJTJGYSUzRHNpZ25hdHVyZQ%3D"

# (family, id, text, secret[, kept])
_ROWS: list[tuple[str, ...]] = [
    # -- HTTP headers, any scheme ----------------------------------------------------------------
    ("header", "bearer", f"Authorization: Bearer {TOKEN}", TOKEN, "Authorization"),
    ("header", "basic", "Authorization: Basic YWxpY2U6czNjcjN0LXBhc3M=", "YWxpY2U6czNjcjN0LXBhc3M="),
    ("header", "token-scheme", f"Authorization: token ghx{TOKEN}", f"ghx{TOKEN}"),
    (
        "header", "digest",
        'Authorization: Digest username="bob", realm="api", nonce="dcd98b7102dd2f0e", '
        'uri="/x", response="6629fae49393a05397450978507c4ef1"',
        "6629fae49393a05397450978507c4ef1",
    ),
    ("header", "proxy", f"Proxy-Authorization: Basic {B64}", B64),
    ("header", "x-api-key", f"X-Api-Key: {TOKEN}", TOKEN, "X-Api-Key"),
    ("header", "x-auth-token", f"X-Auth-Token: {TOKEN}", TOKEN, "X-Auth-Token"),
    ("header", "x-custom-key", f"X-Acme-Key: {TOKEN}", TOKEN, "X-Acme-Key"),
    ("header", "azure-apim", f"Ocp-Apim-Subscription-Key: {TOKEN}", TOKEN),
    ("header", "gitlab-private-token", f"PRIVATE-TOKEN: glx-{TOKEN}", TOKEN),
    ("header", "curl-h", f"curl -sS -H 'Authorization: Bearer {TOKEN}' https://api.example.com/v1", TOKEN),
    ("header", "curl-h-api-key", f'curl -H "x-api-key: {TOKEN}" https://api.example.com', TOKEN),
    ("header", "http-dump", f"> GET /v1/me HTTP/1.1\n> Host: api\n> authorization: bearer {TOKEN}\n> accept: */*", TOKEN),
    ("header", "python-dict", f"headers = {{'Authorization': 'Bearer {TOKEN}', 'Accept': 'json'}}", TOKEN),
    # -- key=value / key: value ----------------------------------------------------------------
    ("pair", "token-scheme-bearer", f"token=Bearer {TOKEN}", TOKEN, "token="),
    ("pair", "api-key-scheme-bearer", f"api_key: Bearer {TOKEN}", TOKEN, "api_key"),
    # Dotted, but not code: a digit, or a capitalised first word.
    ("pair", "dotted-password", "DB_PASSWORD=Hunter2.Spring", "Hunter2.Spring", "DB_PASSWORD="),
    ("pair", "dotted-words-password", "password: Summer.Autumn", "Summer.Autumn", "password: "),
    ("pair", "dollar-password", "MYSQL_ROOT_PASSWORD=$ecretP4ssw0rd!", "ecretP4ssw0rd", "MYSQL_ROOT_PASSWORD="),
    ("pair", "vault-legacy-token", f"VAULT_TOKEN=s.{TOKEN}", TOKEN),
    ("pair", "password-eq", "connecting with password=Tr0ub4dor&3 to db", "Tr0ub4dor"),
    ("pair", "password-quoted-spaces", 'password = "correct horse battery staple"', "horse battery staple"),
    ("pair", "client-secret", f"client_secret={TOKEN}&grant_type=client_credentials", TOKEN),
    ("pair", "log-line", f"2024-05-01 12:00:01 INFO login user=bob pwd={TOKEN} ok", TOKEN),
    ("pair", "prose-label", f"Your API key: {TOKEN}", TOKEN),
    ("pair", "ruby-hash", f'{{ "password" => "{TOKEN}" }}', TOKEN),
    ("pair", "go-assign", f'secret := "{TOKEN}"', TOKEN),
    ("pair", "xml", f"<apiKey>{TOKEN}</apiKey>", TOKEN),
    ("pair", "netrc", f"machine api.example.com login bob password {TOKEN}", TOKEN),
    ("pair", "netrc-lines", f"machine api.example.com\nlogin bob\npassword {TOKEN}\n", TOKEN),
    ("pair", "subscript", f"req.headers['x-api-key'] = '{TOKEN}'", TOKEN, "x-api-key"),
    ("pair", "db-pass", f"DB_HOST=db DB_PASS={TOKEN} DB_NAME=app", TOKEN, "DB_NAME=app"),
    ("pair", "dotnet-config", f'<add key="Stripe:ApiKey" value="{TOKEN}" />', TOKEN),
    # -- JSON ---------------------------------------------------------------------------------
    ("json", "api-key", f'{{"api_key": "{TOKEN}", "model": "x"}}', TOKEN, '"model": "x"'),
    ("json", "access-token", f'{{"access_token":"{TOKEN}","token_type":"Bearer","expires_in":3599}}', TOKEN),
    ("json", "refresh-token", f'{{"refresh_token": "1//0g{TOKEN}"}}', TOKEN),
    ("json", "nested-escaped", f'{{"body": "{{\\"password\\": \\"{TOKEN}\\"}}"}}', TOKEN),
    ("json", "docker-config", f'{{"auths": {{"ghcr.io": {{"auth": "{B64}"}}}}}}', B64),
    ("json", "bearer-value", f'{{"Authorization": "Bearer {TOKEN}"}}', TOKEN),
    # -- YAML and .env --------------------------------------------------------------------------
    ("yaml", "password", f"database:\n  host: db\n  password: {TOKEN}\n  port: 5432", TOKEN, "port: 5432"),
    ("yaml", "unquoted-words", "smtp:\n  user: alerts\n  password: correct horse battery staple\n  port: 587", "horse battery staple", "port: 587"),
    ("yaml", "quoted", f"auth:\n  client_secret: '{TOKEN}'", TOKEN),
    ("yaml", "k8s-stringdata", f"stringData:\n  API_TOKEN: {TOKEN}", TOKEN),
    ("env", "dotenv", f"OPENAI_MODEL=gpt-x\nSTRIPE_SECRET_KEY={TOKEN}\nDEBUG=1", TOKEN, "DEBUG=1"),
    ("env", "export", f'export GITHUB_TOKEN="{TOKEN}"', TOKEN),
    ("env", "powershell", f'$env:API_KEY = "{TOKEN}"', TOKEN),
    # -- CLI flags ------------------------------------------------------------------------------
    ("cli", "password-eq", f"mysqldump --user=root --password={TOKEN} app", TOKEN),
    ("cli", "token-space", f"gh-tool deploy --token {TOKEN} --region eu", TOKEN, "--region eu"),
    ("cli", "api-key-quoted", f'tool --api-key "{TOKEN}"', TOKEN),
    ("cli", "curl-user", f"curl -u admin:{TOKEN} https://internal/api", TOKEN, "admin"),
    ("cli", "docker-login", f"docker login -u bob -p {TOKEN} --password {TOKEN} registry", TOKEN),
    # Tools whose password flag is short and their own (each masked by command, not by "-p").
    ("cli", "redis-cli", f"redis-cli -h cache -p 6379 -a {TOKEN} ping", TOKEN, "-h cache -p 6379 -a", "ping"),
    ("cli", "redis-cli-quoted", f"redis-cli --tls -a '{TOKEN}' --no-auth-warning info", TOKEN, "--no-auth-warning info"),
    ("cli", "sshpass", f"sshpass -p '{TOKEN}' ssh deploy@10.0.0.5 uptime", TOKEN, "ssh deploy@10.0.0.5"),
    ("cli", "sshpass-glued", f"sshpass -p{TOKEN} scp build.tar deploy@host:/srv", TOKEN, "scp build.tar"),
    ("cli", "mysql-glued", f"mysql -h db -uroot -p{TOKEN} orders < dump.sql", TOKEN, "orders < dump.sql"),
    ("cli", "mysql-glued-quoted", f"mysql -u root -p'{TOKEN}' orders", TOKEN, "orders"),
    ("cli", "mysqldump-long", f"mysqldump -u root --password={TOKEN} app > app.sql", TOKEN, "app > app.sql"),
    ("cli", "docker-login-p", f"docker login -p {TOKEN} registry.example.com", TOKEN, "registry.example.com"),
    ("cli", "docker-login-long", f"docker login registry.example.com --username bob --password {TOKEN}", TOKEN, "--username bob"),
    ("cli", "podman-login", f"podman login quay.io -u bob -p {TOKEN}", TOKEN, "quay.io"),
    ("cli", "htpasswd-b", f"htpasswd -b /etc/nginx/.htpasswd admin {TOKEN}", TOKEN, "admin"),
    ("cli", "htpasswd-nb", f"htpasswd -nbB admin {TOKEN} > users", TOKEN, "admin"),
    ("cli", "ldapsearch", f"ldapsearch -x -H ldap://ldap -D cn=admin,dc=acme -w {TOKEN} -b dc=acme", TOKEN, "-b dc=acme"),
    ("cli", "ssh-keygen", f"ssh-keygen -t ed25519 -N '{TOKEN}' -f ~/.ssh/deploy", TOKEN, "-f ~/.ssh/deploy"),
    ("cli", "openssl-passout", f"openssl pkcs12 -export -in c.pem -passout pass:{TOKEN} -out c.p12", TOKEN, "-out c.p12"),
    ("cli", "openssl-passin-quoted", f'openssl rsa -in key.pem -passin "pass:{TOKEN}"', TOKEN),
    ("cli", "az-login", f"az login --service-principal -u http://app -p {TOKEN} --tenant acme", TOKEN, "--tenant acme"),
    ("cli", "kubectl-token", f"kubectl --server=https://k8s:6443 --token={TOKEN} get pods", TOKEN, "get pods"),
    ("cli", "vault-login", f"vault login {TOKEN}", TOKEN),
    ("cli", "sqlcmd", f"sqlcmd -S db -U sa -P {TOKEN} -Q 'SELECT 1'", TOKEN, "-Q 'SELECT 1'"),
    ("cli", "npm-config-set", f"npm config set //registry.npmjs.org/:_authToken {TOKEN}", TOKEN, "_authToken"),
    ("cli", "npm-config-set-eq", f"npm config set //npm.acme.io/:_authToken={TOKEN}", TOKEN),
    ("cli", "gh-with-token", f"gh auth login --with-token <<< ghp_{TOKEN}abcdefghijklm", TOKEN, "<<<"),
    ("cli", "aws-configure-set", f"aws configure set aws_secret_access_key {AWS_SECRET} --profile prod", AWS_SECRET, "--profile prod"),
    ("cli", "dotnet-user-secrets", f'dotnet user-secrets set "Stripe:ApiKey" "{TOKEN}"', TOKEN, "Stripe:ApiKey"),
    ("cli", "gh-secret-set", f"gh secret set DEPLOY_KEY --body {TOKEN} --repo acme/app", TOKEN, "--repo acme/app"),
    ("cli", "kubectl-from-literal", f"kubectl create secret generic db --from-literal=db={TOKEN}", TOKEN, "--from-literal=db="),
    ("cli", "curl-b", f"curl -s -b 'session={TOKEN}' https://app.example.com/api", TOKEN, "https://app.example.com/api"),
    ("cli", "smbclient", f"smbclient //fs/share -U admin%{TOKEN}", TOKEN, "-U admin%"),
    # httpie / xh's short auth flag: the whole user:password, as --auth's.
    ("cli", "httpie-a", "http -a alice:S3cretPass123 https://api.example.com", "alice:S3cretPass123", "http -a", "https://api.example.com"),
    ("cli", "httpie-a-quoted", "https -v -a 'alice:S3cret Pass123' POST api.example.com/v1 x=1", "S3cret Pass123", "POST api.example.com/v1"),
    ("cli", "httpie-a-bearer", f"http --auth-type=bearer -a {TOKEN} https://api.example.com", TOKEN, "--auth-type=bearer -a"),
    ("cli", "xh-a", "xh -a bob:Hunter22pass get example.com/me", "Hunter22pass", "get example.com/me"),
    ("cli", "httpie-auth-long", "http --auth alice:S3cretPass123 https://api.example.com", "alice:S3cretPass123", "--auth"),
    # Windows net use: the password is positional, after the share or after /user:.
    ("cli", "net-use-after-user", r"net use \\srv\share /user:corp\bob Sup3rSecret!", "Sup3rSecret!", r"net use \\srv\share /user:corp\bob"),
    ("cli", "net-use-before-user", r"net use \\srv\share Sup3rSecret! /user:corp\bob", "Sup3rSecret!", r"/user:corp\bob"),
    ("cli", "net-use-drive-quoted", r'NET USE Z: \\fs01\projects "Sup3r Secret!" /USER:CORP\bob /PERSISTENT:NO', "Sup3r Secret!", "/PERSISTENT:NO"),
    ("cli", "net-use-u", r"net use \\10.0.0.5\c$ /u:administrator P4ssw0rd-2024", "P4ssw0rd-2024", "/u:administrator"),
    # Wi-Fi: wpa_passphrase, wpa_supplicant / hostapd / NetworkManager / iwd config, nmcli.
    ("cli", "wpa-passphrase", "wpa_passphrase MyWifi hunter22secret", "hunter22secret", "wpa_passphrase MyWifi"),
    ("cli", "wpa-passphrase-path", "sudo /usr/sbin/wpa_passphrase MyWifi hunter22secret | tee wpa.conf", "hunter22secret", "/usr/sbin/wpa_passphrase MyWifi", "| tee wpa.conf"),
    ("cli", "wpa-passphrase-quoted", "sudo wpa_passphrase \"Home Net\" 'hunter22 secret' >> /etc/wpa_supplicant.conf", "hunter22 secret", '"Home Net"', ">> /etc/wpa_supplicant.conf"),
    ("cli", "nmcli-wifi-connect", "nmcli dev wifi connect Home password hunter22secret", "hunter22secret", "connect Home password"),
    ("cli", "nmcli-wifi-connect-quoted", 'nmcli device wifi connect "My Home" password "hunter22 secret" ifname wlan0', "hunter22 secret", "ifname wlan0"),
    ("cli", "nmcli-psk", "nmcli con modify X wifi-sec.psk hunter22secret", "hunter22secret", "wifi-sec.psk"),
    ("cli", "nmcli-add-psk", "nmcli c add type wifi con-name Home ssid Home wifi-sec.key-mgmt wpa-psk wifi-sec.psk hunter22secret", "hunter22secret", "wifi-sec.key-mgmt wpa-psk"),
    ("cli", "nmcli-8021x", "nmcli connection modify eduroam 802-1x.identity bob 802-1x.password hunter22secret", "hunter22secret", "802-1x.identity bob"),
    ("env", "rediscli-auth", f"REDISCLI_AUTH={TOKEN} redis-cli ping", TOKEN, "redis-cli ping"),
    ("env", "pgpassword", f"PGPASSWORD={TOKEN} psql -h db -U app orders", TOKEN, "psql -h db -U app orders"),
    ("env", "mysql-pwd", f"MYSQL_PWD={TOKEN} mysql -uroot", TOKEN),
    # -- config files ---------------------------------------------------------------------------
    ("config", "pgpass", f"db.internal:5432:orders:app:{TOKEN}", TOKEN, "db.internal:5432:orders:app:"),
    ("config", "pgpass-wildcards", f"echo '*:*:*:app:{TOKEN}' >> ~/.pgpass", TOKEN, ">> ~/.pgpass"),
    ("config", "pypirc", f"[pypi]\nusername = __token__\npassword = {TOKEN}", TOKEN, "username = __token__"),
    ("config", "npmrc", f"//registry.npmjs.org/:_authToken={TOKEN}\n_auth={B64}\nalways-auth=true", TOKEN, "always-auth=true"),
    ("config", "npmrc-auth", f"registry=https://npm.acme.io/\n_auth={B64}", B64),
    ("config", "redis-conf", f"bind 0.0.0.0\nrequirepass {TOKEN}\nmasterauth {TOKEN}", TOKEN, "bind 0.0.0.0"),
    ("config", "ldap-conf", f"binddn cn=reader,dc=acme\nbindpw {TOKEN}", TOKEN, "binddn cn=reader"),
    ("config", "ldap-bind-password", f"ldap:\n  bind_dn: cn=reader\n  bind_password: {TOKEN}", TOKEN),
    ("config", "wpa-supplicant-psk", 'network={\n\tssid="MyWifi"\n\tpsk="hunter22secret"\n}', "hunter22secret", 'ssid="MyWifi"', "psk="),
    ("config", "wpa-supplicant-psk-hex", "network={\n  ssid=\"MyWifi\"\n  psk=4f2a9c1d7e3b4a5c9d8e7f6a5b4c3d2e4f2a9c1d7e3b4a5c9d8e7f6a5b4c3d2e\n}", "4f2a9c1d7e3b4a5c9d8e7f6a5b4c3d2e", "psk="),
    ("config", "networkmanager-psk", "[wifi-security]\nkey-mgmt=wpa-psk\npsk=hunter22secret", "hunter22secret", "key-mgmt=wpa-psk"),
    ("config", "hostapd-passphrase", "interface=wlan0\nssid=MyWifi\nwpa_passphrase=hunter22secret\nwpa_key_mgmt=WPA-PSK", "hunter22secret", "wpa_key_mgmt=WPA-PSK"),
    ("config", "hostapd-wpa-psk", "wpa_psk=4f2a9c1d7e3b4a5c9d8e7f6a5b4c3d2e4f2a9c1d7e3b4a5c9d8e7f6a5b4c3d2e", "4f2a9c1d7e3b4a5c9d8e7f6a5b4c3d2e", "wpa_psk="),
    ("config", "iwd-preshared-key", "[Security]\nPreSharedKey=4f2a9c1d7e3b4a5c9d8e7f6a5b4c3d2e", "4f2a9c1d7e3b4a5c9d8e7f6a5b4c3d2e", "PreSharedKey="),
    ("env", "wifi-psk", "WIFI_SSID=Home WIFI_PSK=hunter22secret ./provision.sh", "hunter22secret", "WIFI_SSID=Home", "./provision.sh"),
    ("header", "x-vault-token", f"X-Vault-Token: {TOKEN}", TOKEN, "X-Vault-Token"),
    ("header", "curl-private-token", f'curl --header "PRIVATE-TOKEN: {TOKEN}" https://gitlab.example.com/api/v4/projects', TOKEN),
    ("json", "docker-config-auth", f'{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{B64}"}}}}}}', B64),
    # -- connection strings ---------------------------------------------------------------------
    (
        "connection-string", "azure-storage",
        f"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={AZURE_KEY};"
        "EndpointSuffix=core.windows.net",
        AZURE_KEY, "EndpointSuffix",
    ),
    (
        "connection-string", "azure-servicebus",
        "Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
        f"SharedAccessKey={AZURE_KEY}",
        AZURE_KEY,
    ),
    ("connection-string", "sqlserver", f"Server=tcp:db,1433;User ID=sa;Password={TOKEN};Encrypt=true", TOKEN),
    ("connection-string", "odbc-pwd", f"Driver={{PostgreSQL}};Server=db;Uid=app;Pwd={TOKEN};", TOKEN),
    # -- URLs -----------------------------------------------------------------------------------
    ("url", "psql-uri", f'psql "postgresql://app:{TOKEN}@db.internal/orders?sslmode=require"', TOKEN, "sslmode=require"),
    ("url", "mongodb-srv", f"mongodb+srv://app:{TOKEN}@cluster0.ab1cd.mongodb.net/orders", TOKEN, "cluster0"),
    ("url", "rediss-no-user", f"REDIS_URL=rediss://:{TOKEN}@cache:6380/0", TOKEN, "cache:6380"),
    ("url", "amqps", f"amqps://worker:{TOKEN}@mq.internal:5671/prod", TOKEN),
    ("url", "git-clone-token", f"git clone https://oauth2:{TOKEN}@gitlab.example.com/team/repo.git", TOKEN),
    ("url", "userinfo", f"git clone https://bob:{TOKEN}@git.example.com/team/repo.git", TOKEN),
    ("url", "postgres", f"DATABASE_URL=postgresql://app:{TOKEN}@db.internal:5432/app", TOKEN),
    ("url", "x-access-token", f"https://x-access-token:{TOKEN}@github.com/org/repo", TOKEN),
    ("url", "at-in-password", "proxy http://svc:Pr0xy@Passw0rd!@proxy.internal:3128", "Pr0xy@Passw0rd!"),
    ("url", "token-as-user", f"git remote add origin https://{TOKEN}@github.com/org/repo.git", TOKEN),
    ("url", "sentry-dsn", "SENTRY_DSN=https://4f2a9c1d7e3b4a5c9d8e7f6a5b4c3d2e@o12345.ingest.sentry.io/678", "4f2a9c1d7e3b4a5c9d8e7f6a5b4c3d2e"),
    ("query", "cloudfront-signature", f"https://d111.cloudfront.net/a.mp4?Expires=1700000000&Signature={TOKEN}&Key-Pair-Id=K2J", TOKEN),
    ("query", "access-token", f"GET https://graph.example.com/me?fields=id&access_token={TOKEN}", TOKEN, "fields=id"),
    ("query", "google-key", f"https://maps.example.com/api/geocode/json?address=x&key={TOKEN}", TOKEN),
    ("query", "apikey", f"https://api.example.com/v2/data?apikey={TOKEN}&q=1", TOKEN, "q=1"),
    ("query", "token", f"wss://stream.example.com/ws?token={TOKEN}", TOKEN),
    (
        "query", "s3-presigned",
        "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIAQX4EXAMPLE7ZK2PD"
        "%2F20240501%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20240501T000000Z&X-Amz-Expires=900"
        "&X-Amz-Security-Token=IQoJb3JpZ2luX2VjEXAMPLE&X-Amz-SignedHeaders=host"
        "&X-Amz-Signature=9d2f0e7b1a6c3e5d8f4a2b7c9e1d3f5a7b9c2e4d6f8a1b3c5e7d9f2a4b6c8e0d",
        "9d2f0e7b1a6c3e5d8f4a2b7c9e1d3f5a7b9c2e4d6f8a1b3c5e7d9f2a4b6c8e0d",
    ),
    (
        "query", "gcs-signed",
        "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=sa"
        "&X-Goog-Signature=5a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071",
        "5a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071",
    ),
    ("query", "oauth-code", f"https://app.example.com/callback?code={TOKEN}&state=xyz", TOKEN, "state=xyz"),
    ("query", "client-secret", f"POST /token?client_id=abc&client_secret={TOKEN}", TOKEN, "client_id=abc"),
    # -- cookies --------------------------------------------------------------------------------
    ("cookie", "cookie", f"Cookie: sessionid={TOKEN}; csrftoken=Xy8Kq2Lm9Np4Rs7Tv1Wz", TOKEN),
    ("cookie", "cookie-second-pair", f"Cookie: theme=dark; sessionid={TOKEN}", TOKEN),
    ("cookie", "set-cookie", f"Set-Cookie: __Host-session={TOKEN}; Path=/; Secure; HttpOnly", TOKEN),
    ("cookie", "curl-cookie", f"curl --cookie 'sid={TOKEN}' https://app", TOKEN),
    ("cookie", "php-session-pair", f"PHPSESSID={TOKEN}", TOKEN),
    # Cookies without a Cookie header: a Set-Cookie value as a client prints it, and session
    # cookies by name in a log line or in code.
    ("cookie", "set-cookie-value", f"session={TOKEN}; Path=/; HttpOnly", TOKEN, "Path=/; HttpOnly"),
    ("cookie", "set-cookie-rails", f"_myapp_session={TOKEN}--abc123; path=/; secure; SameSite=Lax", TOKEN, "SameSite=Lax"),
    ("cookie", "sid-log", f"2026-12-01T10:00:00Z INFO GET /api sid={TOKEN} status=200", TOKEN, "status=200"),
    ("cookie", "connect-sid", f"connect.sid=s%3A{TOKEN}.Zp2Lk9Xv4Rt8Wm3Nb6Yc1q7", TOKEN),
    ("cookie", "jsessionid", f"JSESSIONID={TOKEN}.node1 expired", TOKEN, "expired"),
    ("cookie", "jsessionid-url", f"https://shop.example.com/cart;jsessionid={TOKEN}?item=3", TOKEN),
    ("cookie", "phpsessid-log", f"[php] session PHPSESSID={TOKEN} started", TOKEN, "started"),
    ("cookie", "document-cookie", f'document.cookie = "sid={TOKEN}; path=/";', TOKEN),
    ("cookie", "laravel", f"laravel_session={TOKEN}", TOKEN),
    ("cookie", "host-prefix", f"__Host-SID={TOKEN}", TOKEN),
    ("cookie", "requests-cookiejar", f"<Cookie sessionid={TOKEN} for example.com/>", TOKEN),
    # -- webhooks -------------------------------------------------------------------------------
    ("webhook", "slack", "posting to https://hooks.slack.com/services/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", "q7Zp2Lk9Xv4Rt8Wm3Nb6Yc1x"),
    ("webhook", "teams", f"https://acme.webhook.office.com/webhookb2/1a2b@3c4d/IncomingWebhook/{TOKEN}/5e6f", TOKEN),
    ("webhook", "discord", f"https://discord.com/api/webhooks/112233445566778899/{TOKEN}-aBc", TOKEN),
    # -- cloud credentials ----------------------------------------------------------------------
    ("aws", "credentials-file", f"[default]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    ("aws", "access-key-id", f"using key {AWS_ID} for s3", AWS_ID),
    ("aws", "env", f"AWS_SECRET_ACCESS_KEY={AWS_SECRET} AWS_SESSION_TOKEN=IQoJb3JpZ2luX2Vj{TOKEN}", AWS_SECRET),
    ("aws", "sts-json", f'{{"Credentials": {{"AccessKeyId": "{AWS_ID}", "SecretAccessKey": "{AWS_SECRET}"}}}}', AWS_SECRET),
    (
        "gcp", "service-account-private-key",
        '{"type": "service_account", "project_id": "acme", "private_key_id": "4f2a9c1d7e3b",'
        ' "private_key": "-----BEGIN PRIVATE KEY-----\\n' + PEM_B64 + "\\n" + PEM_B64[::-1]
        + '\\n-----END PRIVATE KEY-----\\n", "client_email": "sa@acme.iam.gserviceaccount.com"}',
        PEM_B64, "client_email",
    ),
    ("gcp", "oauth-access-token", f"ya29.a0AfB_{TOKEN}", TOKEN),
    ("gcp", "oauth-client-secret", f"GOCSPX-{TOKEN}", TOKEN),
    ("azure", "sas-url", f"https://acme.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&se=2030-01-01&sig={SAS_SIG}", SAS_SIG),
    ("azure", "client-secret", "AZURE_CLIENT_SECRET value 8Xy8Q~aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456", "aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456"),
    # -- vendor tokens --------------------------------------------------------------------------
    ("vendor", "github-classic", "ghp_Zq8mN2vX7pL4kR9tW1yB6cH3jF5dS0aE2gU7", "Zq8mN2vX7pL4kR9tW1yB6cH3jF5dS0aE2gU7"),
    ("vendor", "github-oauth", "gho_Zq8mN2vX7pL4kR9tW1yB6cH3jF5dS0aE2gU7", "Zq8mN2vX7pL4kR9tW1yB6cH3jF5dS0aE2gU7"),
    ("vendor", "github-fine-grained", f"github_pat_11ABCDEFG0_{TOKEN}{TOKEN}", TOKEN),
    ("vendor", "gitlab", f"glpat-{TOKEN}", TOKEN),
    ("vendor", "slack-bot", f"xoxb-2222222222-3333333333333-{TOKEN}", TOKEN),
    ("vendor", "slack-app", f"xapp-1-A0123456789-1234567890123-{TOKEN}", TOKEN),
    ("vendor", "stripe-live", f"sk_live_51H{TOKEN}", TOKEN),
    ("vendor", "stripe-restricted", f"rk_live_51H{TOKEN}", TOKEN),
    ("vendor", "openai", f"sk-{TOKEN}T3BlbkFJ{TOKEN}", TOKEN),
    ("vendor", "openai-project", f"sk-proj-{TOKEN}_{TOKEN}", TOKEN),
    ("vendor", "anthropic", f"sk-ant-api03-{TOKEN}-{TOKEN}AA", TOKEN),
    ("vendor", "google-api-key", "AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("vendor", "npm", f"npm_{TOKEN}abcdefghijklm", TOKEN),
    ("vendor", "huggingface", f"hf_{TOKEN}AbCdEfGhIjK", TOKEN),
    ("vendor", "sendgrid", f"SG.ngeVfQFYQlKU0ufo8x5d1A.{TOKEN}Zx9Yw8Vu7Ts6Rq5Po4", TOKEN),
    ("vendor", "twilio-api-key", "SK2b7f1c9e4d3a6b8c0e5f7a9b1d3c5e7f", "2b7f1c9e4d3a6b8c0e5f7a9b1d3c5e7f"),
    ("vendor", "databricks", "dapi2b7f1c9e4d3a6b8c0e5f7a9b1d3c5e7f-3", "2b7f1c9e4d3a6b8c0e5f7a9b1d3c5e7f"),
    ("vendor", "digitalocean", "dop_v1_" + "2b7f1c9e4d3a6b8c" * 4, "2b7f1c9e4d3a6b8c" * 4),
    ("vendor", "shopify", "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", "2b7f1c9e4d3a6b8c0e5f7a9b1d3c5e7f"),
    ("vendor", "docker-hub", f"dckr_pat_{TOKEN}", TOKEN),
    ("vendor", "vault", f"hvs.CAESI{TOKEN}", TOKEN),
    ("vendor", "pypi", f"pypi-AgEIcHlwaS5vcmc{TOKEN}{TOKEN}{TOKEN}", TOKEN),
    ("vendor", "telegram-bot", f"bot123456789:AAH{TOKEN}abcdefghij/sendMessage", TOKEN),
    ("vendor", "after-cjk", f"令牌是ghp_{TOKEN}abcdefghijklm。", TOKEN),
    ("vendor", "mailgun", "MAILGUN key-3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e", "3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e"),
    ("vendor", "sentry-auth", f"SENTRY_AUTH_TOKEN sntrys_{TOKEN}{TOKEN}", TOKEN),
    ("vendor", "groq", f"groq client key gsk_{TOKEN}{TOKEN}abcdefgh", TOKEN),
    ("vendor", "langsmith", "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", "3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e"),
    ("vendor", "terraform-cloud", f"credentials: AbCdEfGh012345.atlasv1.{TOKEN}{TOKEN}{TOKEN}", TOKEN),
    ("vendor", "discord-bot", "DISCORD_TOKEN is MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.q7Zp2Lk9Xv4Rt8Wm3Nb6Yc1abcdefgh", "q7Zp2Lk9Xv4Rt8Wm3Nb6Yc1abcdefgh"),
    ("vendor", "heroku", f"heroku auth:token -> HRKU-{TOKEN}{TOKEN}_abcdefghijklmn", TOKEN),
    ("header", "datadog-application-key", f"DD-APPLICATION-KEY: {TOKEN}", TOKEN),
    ("vendor", "alibaba", "LTAI5tQ7Zp2Lk9Xv4Rt8Wm3N accessed bucket", "5tQ7Zp2Lk9Xv4Rt8Wm3N"),
    # -- JWTs and PEM blocks --------------------------------------------------------------------
    ("jwt", "bare", f"id_token {JWT}", JWT),
    ("jwt", "in-log", f"verifying jwt={JWT} for agent-7", JWT),
    ("pem", "rsa", f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_B64}\n-----END RSA PRIVATE KEY-----", PEM_B64),
    ("pem", "openssh", f"key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_B64}\n-----END OPENSSH PRIVATE KEY-----\n", PEM_B64),
    ("pem", "ec-unterminated", f"-----BEGIN EC PRIVATE KEY-----\n{PEM_B64}", PEM_B64),
]  # fmt: skip

# Cases added after the set-aside split (every fourth case of _ROWS), all for tuning: a quoted
# value after an auth scheme, in every place a scheme stands; a name the context pass's gate
# lacked.
_ROWS_ADDED: list[tuple[str, ...]] = [
    ("header", "bearer-double-quoted", 'Authorization: Bearer "Hunter2!xQ9z"', "Hunter2!xQ9z", "Authorization"),
    ("header", "bearer-single-quoted", "> authorization: bearer 'Hunter2!xQ9z'\n> accept: */*", "Hunter2!xQ9z", "> accept: */*"),
    ("header", "basic-quoted", 'Authorization: Basic "YWxpY2U6czNjcjN0LXBhc3M="', "YWxpY2U6czNjcjN0LXBhc3M="),
    ("header", "token-quoted-spaces", 'Authorization: Token "correct horse battery staple"', "horse battery staple"),
    ("header", "bearer-quoted-escape", 'Authorization: Bearer "Hun\\"ter2!xQ9z"', 'Hun\\"ter2!xQ9z'),
    ("header", "bearer-quoted-unterminated", 'Authorization: Bearer "Hunter2!xQ9z', "Hunter2!xQ9z"),
    ("header", "proxy-basic-quoted", "Proxy-Authorization: Basic 'cHJveHk6UHIweHktUGFzcw=='", "cHJveHk6UHIweHktUGFzcw=="),
    ("header", "curl-h-inner-quotes", f"curl -H 'Authorization: Bearer \"{TOKEN}\"' https://api.example.com", TOKEN, "https://api.example.com"),
    ("header", "curl-h-escaped-quotes", f'curl -H "Authorization: Bearer \\"{TOKEN}\\"" https://api.example.com', TOKEN, "https://api.example.com"),
    ("json", "authorization-quoted-inside", f'{{"authorization": "Bearer \\"{TOKEN}\\"", "accept": "json"}}', TOKEN, '"accept": "json"'),
    ("pair", "token-scheme-quoted", 'token=Bearer "Hunter2!xQ9z" next=1', "Hunter2!xQ9z", "token=", "next=1"),
    ("pair", "api-key-scheme-quoted", "api_key: Bearer 'Hunter2!xQ9z' # staging", "Hunter2!xQ9z", "api_key: ", "# staging"),
    ("pair", "bearer-quoted-prose", 'then use Bearer "Hunter2!xQ9z" for the call', "Hunter2!xQ9z", "for the call"),
    ("pair", "bearer-symbols", "retrying with bearer Hunter2!xQ9z#more now", "Hunter2!xQ9z#more", "now"),
    ("header", "x-bearer-symbols", "X-Bearer  Hunter2!xyz9 ok", "Hunter2!xyz9", "X-Bearer"),
    ("cli", "glued-access-key-table", "AccessKey    Hunter2!xyz9\nRegion       eu-west-1", "Hunter2!xyz9", "Region       eu-west-1"),
    ("cli", "signature-table", "FIELD        VALUE\nx_signature  Sg4Lm9Xv2Kr7Tw3Zn8Bj1", "Sg4Lm9Xv2Kr7Tw3Zn8Bj1"),
    ("yaml", "glued-key-block", "primaryKey: |\n  Hunter2!xyz9\nregion: eu", "Hunter2!xyz9", "region: eu"),
    ("cli", "pass-flag-tab", "tool --adminpass\tHunter2!x9 --verbose", "Hunter2!x9", "--verbose"),
    ("cli", "piped-into-login", "echo 'Hunter2!x9' | podman login -u bob quay.io", "Hunter2!x9", "quay.io"),
    ("header", "name-value-pair-basic", "res.setHeader('Authorization', 'Basic YWxpY2U6czNjcjN0LXBhc3M=')", "YWxpY2U6czNjcjN0LXBhc3M=", "res.setHeader('Authorization', '"),
    ("header", "metadata-tuple-token", f'metadata = [("authorization", "Token {TOKEN}"), ("x-trace", "1")]', TOKEN, '("x-trace", "1")'),
    ("header", "proxy-pair-bytes", f"conn.putheader('Proxy-Authorization', b'Basic {B64}')", B64),
    ("json", "har-header-fields", '{"headers": [{"name": "Authorization", "value": "Basic YWxpY2U6czNjcjN0LXBhc3M="}, {"name": "Accept", "value": "*/*"}]}', "YWxpY2U6czNjcjN0LXBhc3M=", '{"name": "Accept", "value": "*/*"}'),
    ("pair", "xml-header-attributes", '<header name="Proxy-Authorization" value="Basic cHJveHk6UHIweHktUGFzcw=="/>', "cHJveHk6UHIweHktUGFzcw==", 'name="Proxy-Authorization"'),
    ("yaml", "postman-header", f"header:\n  - key: Authorization\n    value: Token {TOKEN}\n    type: text", TOKEN, "type: text"),
    ("header", "js-header-fields", "{ name: 'authorization', value: 'Digest Hunter2!xQ9zK' }", "Hunter2!xQ9zK", "name: 'authorization'"),
]  # fmt: skip

_CORPUS_BASE: list[Case] = [
    Case(family, f"{family}-{name}", text, secret, tuple(kept))
    for family, name, text, secret, *kept in _ROWS
]
CORPUS_ADDED: list[Case] = [
    Case(family, f"{family}-{name}", text, secret, tuple(kept))
    for family, name, text, secret, *kept in _ROWS_ADDED
]
CORPUS: list[Case] = _CORPUS_BASE + CORPUS_ADDED
# Every fourth case of _ROWS set aside: the redaction passes added after the per-pattern era were
# written against the other three (the patterns before them had seen all of it).
CORPUS_TUNING: list[Case] = [
    case for index, case in enumerate(_CORPUS_BASE) if index % 4 != 3
] + CORPUS_ADDED
CORPUS_HELDOUT: list[Case] = _CORPUS_BASE[3::4]

# Ordinary text that must come through unchanged: prose that talks about credentials, code that
# handles them, logs, URLs, ids and hashes.
FALSE_POSITIVES: list[str] = [
    "The quick brown fox jumps over the lazy dog.",
    "the key is in the drawer",
    "token count: 512",
    "Tokens used: 1,204 (prompt 980, completion 224)",
    "max_tokens=1024 temperature=0.2",
    '{"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46}',
    "Authorization required",
    "401 Unauthorized: authorization required for this resource",
    "Please reset your password from the settings page.",
    "The password policy requires twelve characters and a digit.",
    "A secret to fast builds is caching.",
    "bearer of bad news",
    "Cookie: chocolate chip, please",
    "def login(username: str, password: str) -> Session:",
    "    password = getpass.getpass()",
    "    token = os.environ['GITHUB_TOKEN']",
    "api_key = settings.get_secret('api-key')",
    "if not token:\n    raise PermissionError('no token')",
    'headers["Authorization"] = f"Bearer {token}"',
    "sorted(items, key=lambda item: item.priority)",
    "cache_key = f'{user_id}:{page}'",
    "primary_key=True, unique=True",
    "token_type: bearer\nexpires_in: 3600",
    "password_file: /run/secrets/db_password",
    "GITHUB_TOKEN_URL=https://api.github.com/app/installations",
    "docker login --password-stdin registry.example.com",
    "git push -u origin main",
    "ssh -i ~/.ssh/id_ed25519 deploy@10.0.0.7",
    "2024-05-01T12:00:01Z INFO auth: user bob logged in from 10.0.0.7",
    "2024-05-01T12:00:02Z WARN retrying request 3/5 after 429 Too Many Requests",
    "GET /api/v1/tasks?page=2&per_page=50 200 12.3ms",
    "https://example.com/search?q=how+to+rotate+keys&page=2#results",
    "https://github.com/a2aproject/a2a-python/blob/main/README.md",
    "postgres://db.internal:5432/app (no credentials in the URL)",
    "git@github.com:org/repo.git and mailto:ops@example.com",
    "task 123e4567-e89b-12d3-a456-426614174000 completed",
    "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main)",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "ask-questions-about-the-codebase-and-then-answer",
    "risk-assessment: low; task-queue: empty",
    "tool_call_id=call_7Hq2Lm seq=42 streamKey=alpha",
    "Calling tool search_logs with {'query': 'connection refused', 'limit': 20}",
    "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ\n-----END CERTIFICATE-----",
    "Sign in with your key card at the front desk.",
    "思考中：先检查部署状态，然后查看日志。",
    "1 failed, 3 passed in 1.52s",
    "x = {'secret_santa': None, 'password_hint': 'first pet'}",
    "config['timeout'] = 30",
    "if password == confirm_password:",
    "password: str = Field(..., min_length=12)",
    "https://user@example.com/ and ssh://git@github.com/org/repo.git",
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
    "kubectl create secret generic db --from-file=./password.txt",
    "The API key must be rotated every 90 days; use an OAuth token instead.",
    "Token limit exceeded: 128000 > 100000",
    "bypass_cache=true",
    "docker run -p 8080:80 -e DEBUG=1 nginx",
    '<input type="password" name="password" />',
    "session_id=4f2a9c1d stream=alpha",
    "jwt.decode(token, key, algorithms=['HS256'])",
    "Signature: John Doe",
    "x-request-id: 7f3a2b",
    "Set-Cookie header was missing; cookie: none",
    "NetworkConfigurationManager.update.validateMembershipRequestsNow()",
    "password: ********",
    "export OPENAI_API_KEY=<your-api-key>",
    "DB_PASSWORD=${DB_PASSWORD} docker compose up",
    'log.info(f"login failed for user={user} password={password}")',
    'token: "{{ .Values.token }}"',
    "cursor.execute('SELECT 1 FROM users WHERE password = %s', (digest,))",
    # A value that is clearly a placeholder or names the secret in code is not the secret.
    "Use `password = None` in tests, and `token: null` in the YAML.",
    "api_key = settings.API_KEY",
    "token = config.token",
    "password = self.password",
    'secret = get_secret("name")',
    "db_password: ctx.obj.db_password",
    "Authorization: Bearer <token>",
    'curl -H "Authorization: Bearer ${TOKEN}" https://api.example.com/v1/me',
    "curl -H 'Authorization: Bearer $TOKEN' https://api.example.com",
    "Authorization: Bearer {token}",
    "Authorization: Bearer YOUR_TOKEN_HERE",
    "Bearer YOUR_ACCESS_TOKEN",
    'curl -H "Authorization: Bearer $(gcloud auth print-access-token)" https://run.app',
    "export OPENAI_API_KEY=sk-...",
    "ANTHROPIC_API_KEY=sk-ant-... and GITHUB_TOKEN=ghp_…",
    "OPENAI_API_KEY=your-api-key-here",
    "password: xxxxxxxx",
    "set PASSWORD=%DB_PASSWORD% and run",
    "gh auth login --with-token < token.txt",
    # Short flags that are not passwords where the tool is not one of the known ones.
    "redis-cli -h cache -p 6379 ping",
    "ssh -p 2222 deploy@10.0.0.7",
    "redis-cli -a $REDIS_PASSWORD --no-auth-warning ping",
    "ldapsearch -x -W -D cn=admin -b dc=acme",
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "ssh-keygen -t ed25519 -N '' -f key",
    "openssl pkcs12 -passin env:P12_PASS -in c.p12",
    "vault login -method=userpass username=bob",
    "PGPASSWORD=$PGPASSWORD psql -h db",
    "12:00:01:INFO:worker:started",
    "docker run -p 127.0.0.1:5432:5432 postgres:16",
    "SID=ORCL sqlplus scott@db",
    "theme=dark",
    "env:\n  API_KEY: ${{ secrets.API_KEY }}\n  token: \"{{ lookup('env', 'TOKEN') }}\"",
    'curl -H "X-Api-Key: $API_KEY" -H "Authorization: Bearer ${{ secrets.GH_TOKEN }}" https://x',
    "PGPASSWORD=$pg_password psql -h db; DB_PASSWORD=${DbPassword} make migrate",
    "curl -c jar.txt -b jar.txt https://app.example.com",
    "psql -U app -d orders -c 'select 1'",
    # Near misses of the Wi-Fi, net use and httpie shapes: prose, prompts, placeholders, switches.
    "the psk is stored in the vault",
    "psk_file=/etc/hostapd.psk and wpa_psk_file too",
    "set wpa_key_mgmt=WPA-PSK, not psk-only",
    "use net use to map drives",
    r"net use \\server\share to map a drive",
    r"net use Z: \\srv\share * /user:corp\bob",
    r"net use \\srv\share /user:corp\bob /persistent:yes",
    r'net use \\srv\ipc$ "" /user:""',
    r"net use \\srv\share %SHARE_PASSWORD% /user:bob",
    "http -a is httpie's auth flag",
    "http -a alice https://api.example.com",
    "http -a $HTTPIE_AUTH https://api.example.com",
    "http https://example.com/-a and curl -a",
    "see https://example.com/docs/redis-cli -a for the flag",
    "wpa_passphrase MyWifi < passphrase.txt",
    "wpa_passphrase takes the SSID and the passphrase",
    'wpa_passphrase "$SSID" "$PSK" > wpa.conf',
    "nmcli radio wifi off",
    "nmcli con mod Home wifi-sec.psk-flags 1 802-1x.password-flags 2",
    "nmcli asks for the wifi password when needed",
    'nmcli dev wifi connect Home password "$WIFI_PASSWORD"',
]
# Look-alikes added after the set-aside split (every fourth of FALSE_POSITIVES), all for tuning:
# a scheme word with no credential after it, and prose.
FALSE_POSITIVES_ADDED: list[str] = [
    'x = "Authorization: Bearer " + token',
    '{"Authorization": "Bearer " + token}',
    'Authorization: Bearer "$TOKEN"',
    "Authorization: Bearer '<token>'",
    'curl -H "Authorization: Bearer \\"${TOKEN}\\"" https://api.example.com',
    "token: bearer\nexpires: 3600",
    "Treasury bearer bonds.",
    "a \"Bearer\" token, then 'Bearer' again",
    "AccessKey    (not set)",
    'token = request.headers.get("Authorization", "").removeprefix("Bearer ")',
    'auth = headers.get("Authorization", None) or headers.get("Proxy-Authorization", default)',
    '("Authorization", f"Basic {creds}")',
    'conn.setRequestProperty("Authorization", "Basic "+encoded);',
    "xhr.setRequestHeader('Authorization', 'Bearer '.concat(token))",
    'app.add_middleware(CORSMiddleware, allow_headers=["Authorization", "Content-Type"])',
    "SENSITIVE_HEADERS = ('authorization', 'cookie', 'x-api-key')",
    '{"name": "authorization_status", "value": "approved"}',
    '{"name": "Authorization", "value": "{{token}}"}',
]
