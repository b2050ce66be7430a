# ruff: noqa: E501  (a table reads best one case per line)
"""A second held-out credential corpus: agent outputs written fresh, and never tuned against.

Written on 2026-12-02 (06:58-07:25 UTC) by the session helper "redfix", before any change to the
redactor that session, from what agents print while they work: shell transcripts (``$ cmd`` and
``+ cmd`` traces), tool logs, ``curl -v``/httpx/requests debug dumps, stack traces with locals,
``docker inspect``/``kubectl``/``helm``/``vault`` output, JSON tool results, YAML, ``.env``
dumps, Java/Spring/Kafka properties, connection strings, URLs with user info or query tokens,
CLI help, struct dumps from Go/Rust, and chat prose. Its look-alikes are what the same tools
print that holds no credential: digests, commit and trace ids, UUIDs, base64 images, public
keys, masks tools already print, placeholders, secret *names* and references, and test
fixtures marked as such. Its figures were taken once before that session's fixes and once after;
``tests/redaction/test_heldout_second.py`` holds the redactor to floors under those figures.

A case that fails here is the symptom of a class of miss to understand, never a reason to add a
pattern for its text; cases are not edited to make them pass. Every value is made up.
"""

from __future__ import annotations

from support.redaction_corpus import Case

# (family, id, text, secret[, kept...])
_ROWS: list[tuple[str, ...]] = [
    # -- shell transcripts ------------------------------------------------------------------------
    ("shell", "export-database-url", "$ export DATABASE_URL=postgresql://app_user:Wq7!mZ2pLx9@db.prod.internal:5432/orders\n$ alembic upgrade head", "Wq7!mZ2pLx9", "alembic upgrade head"),
    ("shell", "set-x-curl-bearer", "+ curl -fsS -H 'Authorization: Bearer kR4tY8wQ2zX6vB1nM9pL3sD7' https://api.acme.dev/v2/deploys\n{\"deploys\": []}", "kR4tY8wQ2zX6vB1nM9pL3sD7", "https://api.acme.dev/v2/deploys"),
    ("shell", "mysql-glued-quoted", "Running: mysql -h 10.2.0.4 -u reporting -p'Gr33n!Lantern' -e \"show databases\"", "Gr33n!Lantern", "show databases"),
    ("shell", "psql-conninfo", 'psql "host=db.internal port=5432 dbname=billing user=billing password=x9Lm2Qv7Rt8k sslmode=require"', "x9Lm2Qv7Rt8k", "sslmode=require"),
    ("shell", "docker-run-env", "$ docker run -d -e MINIO_ROOT_USER=admin -e MINIO_ROOT_PASSWORD=minio-R00t-Pass -p 9000:9000 minio/minio server /data", "minio-R00t-Pass", "minio/minio server /data"),
    ("shell", "helm-set-password", "$ helm upgrade --install grafana grafana/grafana -n obs --set adminPassword='Graf@na-Adm1n' --wait", "Graf@na-Adm1n", "--wait"),
    ("shell", "kubectl-docker-registry", "kubectl create secret docker-registry regcred --docker-server=ghcr.io --docker-username=bot --docker-password=Dock3r-Reg-Pw7 -n apps", "Dock3r-Reg-Pw7", "-n apps"),
    ("shell", "kubectl-decoded-secret", "$ kubectl get secret db -o jsonpath='{.data.password}' | base64 -d\nPg-Pr0d-Passw0rd!9", "Pg-Pr0d-Passw0rd!9"),
    ("shell", "zip-password", "$ zip -P Z1p-Arch1ve-Pw backup.zip dump.sql\n  adding: dump.sql (deflated 81%)", "Z1p-Arch1ve-Pw", "backup.zip dump.sql"),
    ("shell", "7z-glued", "7z a -pS3ven-Zip-Pw! -mhe=on backup.7z ./exports", "S3ven-Zip-Pw!", "backup.7z"),
    ("shell", "mosquitto", "mosquitto_pub -h broker.lan -u sensor-12 -P Mqtt-S3nsor-Pw -t home/temp -m 21.5", "Mqtt-S3nsor-Pw", "-t home/temp"),
    ("shell", "openssl-enc-k", "openssl enc -aes-256-cbc -salt -k 'Op3nSSL-Enc-Key!' -in notes.txt -out notes.enc", "Op3nSSL-Enc-Key!", "-out notes.enc"),
    ("shell", "docker-build-arg", "docker build --build-arg DB_PASS=Bu1ld-Arg-Pw42 -t acme/etl:dev .", "Bu1ld-Arg-Pw42", "-t acme/etl:dev"),
    ("shell", "curl-form-secret", "curl -X POST https://auth.acme.dev/oauth/token -d 'grant_type=client_credentials&client_id=cli&client_secret=Cl13nt-S3cr3t-Val9'", "Cl13nt-S3cr3t-Val9", "client_id=cli"),
    ("shell", "curl-json-body", 'curl -s -X POST https://app.acme.dev/api/login -H "Content-Type: application/json" -d \'{"username":"admin","password":"JsonB0dy-Pw!7"}\'', "JsonB0dy-Pw!7", "Content-Type: application/json"),
    ("shell", "httpie-header", 'http POST api.acme.dev/jobs Authorization:"Bearer pL8mQ2xW7vZ4nR9tY3kJ6" name=nightly', "pL8mQ2xW7vZ4nR9tY3kJ6", "name=nightly"),
    ("shell", "env-grep", "$ env | grep -i token\nSONAR_TOKEN=squ_4f8a2c9e1b7d3f5a6c8e0b2d4f6a8c1e3b5d7f9a\nTOKENIZERS_PARALLELISM=false", "4f8a2c9e1b7d3f5a6c8e0b2d4f6a8c1e3b5d7f9a", "TOKENIZERS_PARALLELISM=false"),
    ("shell", "git-remote-v", "$ git remote -v\norigin\thttps://x-access-token:Q7pL2mX9vK4rT8wZ1nB6cJ3dF5sA0eH2@github.com/acme/app.git (fetch)", "Q7pL2mX9vK4rT8wZ1nB6cJ3dF5sA0eH2", "(fetch)"),
    # -- tool logs and debug dumps ------------------------------------------------------------------
    ("log", "requests-headers-token", "[2026-11-30 10:22:41] DEBUG client: headers={'User-Agent': 'python-requests/2.32', 'Authorization': 'Token 9f8e7d6c5b4a39281706f5e4d3c2b1a0'}", "9f8e7d6c5b4a39281706f5e4d3c2b1a0", "python-requests/2.32"),
    ("log", "curl-v-basic", "> GET /api/v4/projects HTTP/2\n> Host: git.acme.io\n> Authorization: Basic ZGVwbG95OlN1bW1lcjIwMjQhUXo=\n> User-Agent: curl/8.5.0", "ZGVwbG95OlN1bW1lcjIwMjQhUXo=", "User-Agent: curl/8.5.0"),
    ("log", "httpx-bytes-headers", "DEBUG:httpcore.http11:send_request_headers.started request=<Request [b'POST']> headers=[(b'Host', b'api.acme.dev'), (b'Authorization', b'Bearer 7hG2kL9mQ4xW8vZ3nR6tY1pJ')]", "7hG2kL9mQ4xW8vZ3nR6tY1pJ", "b'api.acme.dev'"),
    ("log", "logfmt-escaped-json", 'level=error msg="upstream 401" body="{\\"error\\":\\"invalid_token\\",\\"token\\":\\"tk_9Xq2Lm7Vv4Rt8Wz1Nb6\\"}" dur=12ms', "9Xq2Lm7Vv4Rt8Wz1Nb6", "dur=12ms"),
    ("log", "h2-pseudo-headers", ":method: GET\n:authority: api.acme.dev\n:path: /v1/me\nauthorization: Bearer Hq3Lm8Xv2Kr7Tw4Zn9Bj6Yc\naccept: application/json", "Hq3Lm8Xv2Kr7Tw4Zn9Bj6Yc", "accept: application/json"),
    ("log", "quoted-bearer-header", 'WARN retry 2/3: POST https://hooks.acme.dev/ingest headers: Authorization: Bearer "Qz7!rT2mLx9vWk4p"', "Qz7!rT2mLx9vWk4p"),
    ("log", "amz-security-token", "x-amz-date: 20261130T102241Z\nx-amz-security-token: IQoJb3JpZ2luX2VjEJr8LmQ2xW7vZ4nR9tY3kJ6pH1sD5fG8aC0eB2\nx-amz-content-sha256: UNSIGNED-PAYLOAD", "LmQ2xW7vZ4nR9tY3kJ6pH1sD5fG8aC0eB2", "UNSIGNED-PAYLOAD"),
    ("log", "cookie-session", "Cookie: _acme_sess=Sx8Lm2Qv7Kr4Tw9Zn1Bj6Yc3Hd5Fg0Pa; theme=dark", "Sx8Lm2Qv7Kr4Tw9Zn1Bj6Yc3Hd5Fg0Pa", "theme=dark"),
    ("log", "set-cookie", "< HTTP/1.1 302 Found\n< Set-Cookie: remember_token=Rt7Lm2Qv8Kx4Tw9Zn1Bj6Yc; Path=/; HttpOnly; Secure", "Rt7Lm2Qv8Kx4Tw9Zn1Bj6Yc", "Path=/; HttpOnly"),
    ("log", "proxy-authorization", "CONNECT api.acme.dev:443 HTTP/1.1\nProxy-Authorization: Basic cHJveHk6UHIweHktUGFzcyE=", "cHJveHk6UHIweHktUGFzcyE=", "CONNECT api.acme.dev:443"),
    ("log", "token-in-query-log", '10.0.4.2 - - [30/Nov/2026:10:22:41 +0000] "GET /v1/export?access_token=Qp8Lm2Xv7Kr4Tw9Zn1Bj&format=csv HTTP/1.1" 200 5120', "Qp8Lm2Xv7Kr4Tw9Zn1Bj", "format=csv"),
    ("log", "websocket-url", "connecting to wss://stream.acme.dev/socket?token=Ws8Lm2Xv7Kr4Tw9Zn1Bq&v=2 ...", "Ws8Lm2Xv7Kr4Tw9Zn1Bq", "v=2"),
    ("log", "appid-query", "GET https://api.weather.example/v1/forecast?lat=52.5&lon=13.4&appid=8f4e2a9c7b1d3e5f6a8c0b2d4e6f8a1c -> 200", "8f4e2a9c7b1d3e5f6a8c0b2d4e6f8a1c", "lat=52.5"),
    # -- stack traces -------------------------------------------------------------------------------
    ("trace", "psycopg-dsn", 'Traceback (most recent call last):\n  File "etl/load.py", line 41, in connect\n    conn = psycopg2.connect(dsn="dbname=warehouse user=etl password=Etl!Load2024x host=10.0.3.7")\npsycopg2.OperationalError: FATAL:  password authentication failed for user "etl"', "Etl!Load2024x", "password authentication failed"),
    ("trace", "locals-api-key", "  File \"/app/billing/client.py\", line 88, in charge\n    resp = self._post(\"/charges\", body)\n    api_key = 'ak_live_Vw3Xy9Zq2Lm7Kp4Rt8Nb'\n    body = {'amount': 1200}", "Vw3Xy9Zq2Lm7Kp4Rt8Nb", "body = {'amount': 1200}"),
    ("trace", "java-exception-url", "org.postgresql.util.PSQLException: Connection to jdbc:postgresql://db:5432/app?user=app&password=Jdbc-Pw-9912x refused.\n\tat org.postgresql.core.v3.ConnectionFactoryImpl.openConnectionImpl(ConnectionFactoryImpl.java:319)", "Jdbc-Pw-9912x", "ConnectionFactoryImpl.java:319"),
    ("trace", "go-panic-struct", "panic: dial tcp: lookup db: no such host\n\ngoroutine 1 [running]:\nmain.mustConnect(&Config{Host:\"db\", User:\"app\", Password:\"G0-Struct-Pw!x\", Port:5432})", "G0-Struct-Pw!x", 'Host:"db"'),
    ("trace", "go-printf-v", "config loaded: {Host:db User:app Password:G0plain-Pw!7 Port:5432 SSL:true}", "G0plain-Pw!7", "Host:db"),
    ("trace", "rust-debug", 'Error: connect failed for Credentials { username: "app", password: "Ru5t-Debug-Pw" } at src/db.rs:42', "Ru5t-Debug-Pw", "src/db.rs:42"),
    # -- JSON tool results --------------------------------------------------------------------------
    ("json", "oauth-client", '{"status":"ok","data":{"client_id":"web-portal","client_secret":"4b8F2kL9mQ7xW3vZ1nR6tY0pJ","scopes":["read"]}}', "4b8F2kL9mQ7xW3vZ1nR6tY0pJ", '"scopes":["read"]'),
    ("json", "sts-session-token", '{\n  "Credentials": {\n    "AccessKeyId": "ASIAQ7PL2MX9VK4RT8WZ",\n    "SecretAccessKey": "Zr8Lm2Qv7Kx4Tw9Zn1Bj6Yc3Hd5Fg0PaLm2Qv7K",\n    "SessionToken": "FwoGZXIvYXdzEJr8LmQ2xW7vZ4nR9tY3kJ6pH1sD5fG8aC0eB2Lm8Xv2Kr7Tw4Zn9Bj6Yc",\n    "Expiration": "2026-11-30T11:22:41Z"\n  }\n}', "FwoGZXIvYXdzEJr8LmQ2xW7vZ4nR9tY3kJ6pH1sD5fG8aC0eB2Lm8Xv2Kr7Tw4Zn9Bj6Yc", '"Expiration": "2026-11-30T11:22:41Z"'),
    ("json", "docker-inspect-env", '"Env": [\n    "PATH=/usr/local/sbin:/usr/local/bin",\n    "POSTGRES_PASSWORD=pg-Sup3r-S3cret",\n    "PGDATA=/var/lib/postgresql/data"\n]', "pg-Sup3r-S3cret", "PGDATA=/var/lib/postgresql/data"),
    ("json", "authorization-quoted-scheme", '{"url": "https://api.acme.dev/v1/run", "headers": {"authorization": "Bearer Jq4Lm9Xv2Kr7Tw3Zn8Bj"}}', "Jq4Lm9Xv2Kr7Tw3Zn8Bj", '"url": "https://api.acme.dev/v1/run"'),
    ("json", "graphql-login", 'mutation { login(email: "ops@acme.io", password: "Gr4phQL-Pw!k") { token } }', "Gr4phQL-Pw!k", "ops@acme.io"),
    ("json", "docker-config-auth", '{"auths":{"registry.acme.io":{"auth":"Y2ktYm90OlJlZzFzdHJ5LVB3IQ=="}}}', "Y2ktYm90OlJlZzFzdHJ5LVB3IQ==", "registry.acme.io"),
    ("json", "webhook-signing", '{"id": "we_1", "url": "https://acme.dev/hooks", "signing_secret": "Ss9Lm2Xv7Kr4Tw8Zn1Bj6Yc3"}', "Ss9Lm2Xv7Kr4Tw8Zn1Bj6Yc3", '"url": "https://acme.dev/hooks"'),
    ("json", "gql-variables", '{"query": "mutation($k: String!) { rotate(key: $k) }", "variables": {"apiKey": "Ak7Lm2Qv9Kx4Tw8Zn1Bj"}}', "Ak7Lm2Qv9Kx4Tw8Zn1Bj", "rotate(key: $k)"),
    # -- YAML and Kubernetes ------------------------------------------------------------------------
    ("yaml", "k8s-secret-stringdata", 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: smtp\nstringData:\n  SMTP_PASSWORD: "m4il-Relay-Pass!"\n  SMTP_HOST: smtp.acme.io', "m4il-Relay-Pass!", "SMTP_HOST: smtp.acme.io"),
    ("yaml", "k8s-secret-data-b64", "apiVersion: v1\nkind: Secret\ntype: Opaque\ndata:\n  username: YXBw\n  password: UzNjdXJlUGFzc3cwcmQhOTk=", "UzNjdXJlUGFzc3cwcmQhOTk=", "username: YXBw"),
    ("yaml", "ansible-become", "all:\n  vars:\n    ansible_user: deploy\n    ansible_become_pass: \"Bec0me-R00t!\"", "Bec0me-R00t!", "ansible_user: deploy"),
    ("yaml", "spring-yaml", "spring:\n  datasource:\n    url: jdbc:mysql://db:3306/shop\n    username: shop\n    password: Spr1ng-Yaml-Pw\n  jpa:\n    show-sql: false", "Spr1ng-Yaml-Pw", "show-sql: false"),
    ("yaml", "gha-hardcoded", "      - name: publish\n        env:\n          PYPI_PASSWORD: pYp1-Upl0ad-Pw\n        run: twine upload dist/*", "pYp1-Upl0ad-Pw", "twine upload dist/*"),
    ("yaml", "helm-values-nested", "postgresql:\n  auth:\n    username: app\n    password: H3lm-Val-Pw-22\n    database: app", "H3lm-Val-Pw-22", "database: app"),
    ("yaml", "compose-env-list", "services:\n  api:\n    environment:\n      - REDIS_URL=redis://:Zt8#Kq2vWm4x@cache-01:6379/0\n      - LOG_LEVEL=info", "Zt8#Kq2vWm4x", "LOG_LEVEL=info"),
    # -- .env, properties, ini, rc files ------------------------------------------------------------
    ("env", "dotenv-dump", "APP_ENV=production\nSESSION_SECRET=b7Q2mX9vL4kR8tW1zN6pJ3\nLOG_LEVEL=info", "b7Q2mX9vL4kR8tW1zN6pJ3", "LOG_LEVEL=info"),
    ("env", "twilio-auth-token", "TWILIO_ACCOUNT_SID=AC-in-vault\nTWILIO_AUTH_TOKEN=8e1f3a5c7b9d2e4f6a8c0b1d3e5f7a9c", "8e1f3a5c7b9d2e4f6a8c0b1d3e5f7a9c", "TWILIO_ACCOUNT_SID"),
    ("config", "spring-properties", "spring.datasource.url=jdbc:postgresql://db/app\nspring.datasource.password=Spr1ng-DataSrc!\nserver.port=8080", "Spr1ng-DataSrc!", "server.port=8080"),
    ("config", "kafka-jaas", 'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="kafka-app" password="K4fka-S4sl-Pw";', "K4fka-S4sl-Pw", 'username="kafka-app"'),
    ("config", "mysql-ini", "[client]\nuser = backup\npassword = \"b4ckup#Pass9\"\nhost = db", "b4ckup#Pass9", "host = db"),
    ("config", "pgpass-line", "$ cat ~/.pgpass\ndb.internal:5432:*:replicator:R3pl1c4t0r-pw", "R3pl1c4t0r-pw"),
    ("config", "pip-conf", "[global]\nindex-url = https://ci-bot:AKCp8kR2mX9vL4tW7zN1bQ6@artifactory.acme.io/api/pypi/simple", "AKCp8kR2mX9vL4tW7zN1bQ6", "artifactory.acme.io/api/pypi/simple"),
    ("config", "git-credentials", "$ cat ~/.git-credentials\nhttps://ci-bot:Q9xL2mV7kR4tW8zN5b@git.acme.io", "Q9xL2mV7kR4tW8zN5b", "git.acme.io"),
    ("config", "netrc-artifactory", "machine artifactory.acme.io\n  login ci-bot\n  password AKCp8jQ7vL2mX9kR4tW8zN", "AKCp8jQ7vL2mX9kR4tW8zN", "login ci-bot"),
    ("config", "azure-storage-conn", "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=Xk2vLm9Qr7Tw4Zn8Bj1Yc6Hd3Fg5Pa0Sx2Lm9Qr7Tw4Zn8Bj1Yc6Hd3Fg5Pa0Sx2Lm9Qr7Tw4Zn8Bj1Yc6Hd==;EndpointSuffix=core.windows.net", "Xk2vLm9Qr7Tw4Zn8Bj1Yc6Hd3Fg5Pa0Sx2Lm9Qr7Tw4Zn8", "EndpointSuffix=core.windows.net"),
    ("config", "sqlserver-conn", "Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=crm;User ID=crmadmin;Password=P@ssw0rd-Azure-77;Encrypt=True;", "P@ssw0rd-Azure-77", "Encrypt=True"),
    ("config", "mongodb-srv", "MONGO_URI=mongodb+srv://analytics:T5vN8qR2wL@cluster0.ab1cd.mongodb.net/?retryWrites=true", "T5vN8qR2wL", "retryWrites=true"),
    ("config", "amqp-url", "broker_url = 'amqp://worker:Rabb1tMQ-s3cret@mq.internal:5672/%2f'", "Rabb1tMQ-s3cret", "mq.internal:5672"),
    ("config", "smtp-url-encoded-user", "EMAIL_URL=smtps://alerts%40acme.io:Sm7p-Relay!x@smtp.acme.io:465", "Sm7p-Relay!x", "smtp.acme.io:465"),
    ("config", "oss-accesskey", "[oss]\nendpoint = oss-eu-central-1.aliyuncs.com\naccessKeyId = LTAI5tQp8Lm2Xv7Kr4Tw9Zn1\naccessKeySecret = Ok8Lm2Qv7Kx4Tw9Zn1Bj6Yc3Hd5Fg0", "Ok8Lm2Qv7Kx4Tw9Zn1Bj6Yc3Hd5Fg0", "endpoint = oss-eu-central-1.aliyuncs.com"),
    # -- code and calls -----------------------------------------------------------------------------
    ("code", "requests-auth-tuple", 'resp = requests.get(url, auth=("deploy", "Dep10y-Key!x"), timeout=10)', "Dep10y-Key!x", "timeout=10"),
    ("code", "http-basic-auth", "session.auth = HTTPBasicAuth('svc', 'Svc#Acc0unt9')", "Svc#Acc0unt9", "HTTPBasicAuth"),
    ("code", "pscredential", '$cred = New-Object System.Management.Automation.PSCredential("svc_backup", (ConvertTo-SecureString "B@ckup-2026!" -AsPlainText -Force))', "B@ckup-2026!", "svc_backup"),
    ("code", "js-fetch-header", "await fetch(url, { headers: { Authorization: 'Bearer Fx8Lm2Qv7Kr4Tw9Zn1Bj6Y' } })", "Fx8Lm2Qv7Kr4Tw9Zn1Bj6Y", "await fetch(url"),
    ("code", "go-set-header", 'req.Header.Set("X-Api-Key", "Gk7Lm2Qv9Kx4Tw8Zn1Bj3")', "Gk7Lm2Qv9Kx4Tw8Zn1Bj3", "req.Header.Set"),
    ("code", "terraform-plan-literal", '  + resource "aws_db_instance" "main" {\n      + master_password = "Tf-L1teral-Pw!"\n      + username        = "admin"', "Tf-L1teral-Pw!", '+ username        = "admin"'),
    # -- prose, chat and CLI help -------------------------------------------------------------------
    ("prose", "set-password-to", "Done. I've set the admin password to `Adm1n!Reset#42` and emailed the team.", "Adm1n!Reset#42", "emailed the team"),
    ("prose", "password-is", "The staging database password is Wint3r-Is-C0ming and the user is `etl`.", "Wint3r-Is-C0ming", "the user is `etl`"),
    ("prose", "new-token-line", "Created a personal access token for the bot:\n\n    Xq9vLm2Rt7Kp4Wz8Nb1Jc6Yd3\n\nStore it now, it is shown once.", "Xq9vLm2Rt7Kp4Wz8Nb1Jc6Yd3", "Store it now"),
    ("cli-help", "typer-default", "Options:\n  --endpoint TEXT  API base URL  [default: https://api.acme.dev]\n  --token TEXT     API token  [default: 3pQ8vL2mX7kR9tW4zN1b]\n  --help           Show this message and exit.", "3pQ8vL2mX7kR9tW4zN1b", "Show this message and exit."),
    ("cli-help", "vault-kv-table", "====== Data ======\nKey         Value\n---         -----\napi_key     Vk9xL2mQ7vR4tW8zN1bJ\ndb_pass     Db-Pa55-word!x", "Db-Pa55-word!x", "====== Data ======"),
    ("cli-help", "aws-configure-list-clear", "      Name                    Value             Type    Location\n      ----                    -----             ----    --------\n   profile                <not set>             None    None\naccess_key     AKIAQ7PL2MX9VK4RT8WZ shared-credentials-file\nsecret_key     Zr8Lm2Qv7Kx4Tw9Zn1Bj6Yc3Hd5Fg0PaLm2Qv7Kq shared-credentials-file", "Zr8Lm2Qv7Kx4Tw9Zn1Bj6Yc3Hd5Fg0PaLm2Qv7Kq", "shared-credentials-file"),
    ("cli-help", "signature-table", "FIELD        VALUE\nkey_id       wh_01\nx_signature  Sg4Lm9Xv2Kr7Tw3Zn8Bj1Yc6", "Sg4Lm9Xv2Kr7Tw3Zn8Bj1Yc6", "key_id       wh_01"),
    # -- vendor shapes inside other text ------------------------------------------------------------
    ("vendor", "git-clone-oauth2", "$ git clone https://oauth2:glpat-Xy7Zq2Lm9Kp4Rt8Wv3Nb@gitlab.acme.io/platform/infra.git\nCloning into 'infra'...", "Xy7Zq2Lm9Kp4Rt8Wv3Nb", "Cloning into 'infra'..."),
    ("vendor", "npmrc", "//npm.pkg.github.com/:_authToken=ghp_Rk8Lm2Qv7Kx4Tw9Zn1Bj6Yc3Hd5Fg0Pa7Ls2\n@acme:registry=https://npm.pkg.github.com", "Rk8Lm2Qv7Kx4Tw9Zn1Bj6Yc3Hd5Fg0Pa7Ls2", "@acme:registry=https://npm.pkg.github.com"),
    ("vendor", "slack-in-json", '{"ok": true, "access_token": "xoxb-1234567890-0987654321-Lm2Qv7Kx4Tw9Zn1Bj6Yc3Hd5", "team": {"name": "acme"}}', "Lm2Qv7Kx4Tw9Zn1Bj6Yc3Hd5", '"team": {"name": "acme"}'),
    ("vendor", "jwt-cookie-log", "set access_token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3QtNDIiLCJleHAiOjE5MDAwMDAwMDB9.Tk9UX0FfUkVBTF9TSUdfSnVzdEZvclRlc3Q for bot-42", "Tk9UX0FfUkVBTF9TSUdfSnVzdEZvclRlc3Q", "for bot-42"),
    ("vendor", "openssh-private-key", "$ cat ~/.ssh/deploy_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBq7Lm2Qv9Kx4Tw8Zn1Bj3Yc6Hd5Fg0PaSx2Lm9Qr7Tw4ZnAAAAJgT1F0v\n-----END OPENSSH PRIVATE KEY-----", "QyNTUxOQAAACBq7Lm2Qv9Kx4Tw8Zn1Bj3Yc6Hd5Fg0PaSx2Lm9Qr7Tw4ZnAAAAJgT1F0v"),
]  # fmt: skip

HELDOUT_SECOND: list[Case] = [
    Case(family, f"{family}-{name}", text, secret, tuple(kept))
    for family, name, text, secret, *kept in _ROWS
]

# What the same tools print that holds no credential: must come through byte for byte.
HELDOUT_SECOND_LOOKALIKES: list[str] = [
    # digests, ids, commits, traces
    "commit 3f9a1c7e5b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a\nAuthor: Dana Ruiz <dana@acme.io>\nDate:   Mon Nov 30 10:22:41 2026 +0000",
    "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    "request_id=6f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f status=200 latency_ms=41",
    "nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
    '"integrity": "sha512-Kx9vLm2Qr7Tw4Zn8Bj1Yc6Hd3Fg5Pa0Sx2Lm9Qr7Tw4Zn8Bj1Yc6Hd3Fg5Pa0Sx2Lm9Qr7Tw4Zn8Bj1Yc6HdQ=="',
    "  --hash=sha256:7c4a8d09ca3762af61e59520943dc26494f8941b1f2e8a5c3b7d9e0f1a2b3c4d",
    "golang.org/x/net v0.31.0 h1:68CPQngjLL0r2AlUKiSxtQFKvzRVbnzLwMUn5SzcLHo=",
    "x-amz-request-id: 4442587FB7D0A2F9\nx-amz-id-2: vlR7PnpV2Ce81l0PRw6jlUpck7Jo5ZsQjryTjKlc5aLWGVHPZLj5NeC6qMa0emYBDXOo6QBU0Wo=",
    'ETag: "33a64df551425fcc55e4d42a148795d9f25f89d4"',
    "Content-MD5: Q2hlY2sgSW50ZWdyaXR5IQ==",
    "arn:aws:iam::123456789012:role/deploy-ci and arn:aws:s3:::acme-artifacts/builds/42",
    'metadata:\n  uid: 9c2d5e1f-7a3b-4c8d-9e0f-1a2b3c4d5e6f\n  resourceVersion: "48213377"',
    "charge ch_3QaBcDeFgHiJkLmN0pQrStUv succeeded for cus_Q7pL2mX9vK4rT8",
    "uploaded s3://acme-media/uploads/2026/11/8f3a2b1c-4d5e-6f7a-8b9c-0d1e2f3a4b5c.jpg (2.1 MB)",
    "Idempotency-Key: 5f1d2e3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
    '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==" alt="dot">',
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGq7Lm2Qv9Kx4Tw8Zn1Bj3Yc6Hd5Fg0PaSx2Lm9Qr7T deploy@ci-runner",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEq7Lm2Qv9Kx4Tw8Zn1Bj3Yc6Hd5Fg0Pa\n-----END PUBLIC KEY-----",
    "panic at 0x7f3a2b1c4d5e in libssl.so.3 (offset 0x1c4d5e)",
    "$ docker images\nREPOSITORY    TAG     IMAGE ID       CREATED\nacme/etl      dev     4a7d1c9e2b3f   5 minutes ago",
    # masks, placeholders, references, secret names
    '  + password = (sensitive value)\n  + username = "admin"',
    "access_key     ****************8RWZ shared-credentials-file\nsecret_key     ****************Qv7K shared-credentials-file",
    "        env:\n          GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n          NPM_TOKEN: ${{ secrets.NPM_TOKEN }}",
    "# .env.example\nDATABASE_URL=postgresql://user:<password>@localhost:5432/app\nSTRIPE_SECRET_KEY=<changeme>",
    "postgresql://app@db.internal:5432/app?sslmode=require",
    'password = os.getenv("DB_PASSWORD")\ntoken = request.headers.get("Authorization", "").removeprefix("Bearer ")',
    "Authorization: Bearer <redacted>",
    "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n        key: password",
    "NAME              TYPE                                  DATA   AGE\ndb-credentials    Opaque                                2      3d\nregcred           kubernetes.io/dockerconfigjson        1      41d",
    "spec:\n  serviceAccountName: deployer\n  tls:\n    - secretName: api-tls-cert",
    "password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  66386439653236336462626566653063336164663966303231363934653561363964363833313662",
    "Rotate the signing key monthly; the access key lives in Vault at secret/data/ci/aws.",
    "docker login ghcr.io -u bot --password-stdin < /run/secrets/ghcr_token",
    'export API_TOKEN="$(vault kv get -field=token secret/ci/api)"',
    # CLI help and logs that talk about credentials
    "Options:\n  -u, --user TEXT      User name\n  -p, --password TEXT  Password (prompted if omitted)\n  --token TEXT         API token (or set ACME_TOKEN)",
    "2026-11-30T10:22:41Z INFO auth: token refresh scheduled in 3600s",
    "2026-11-30T10:22:42Z WARN password reset email sent to dana@acme.io",
    "Basic authentication failed for user 'ci-bot' (401)",
    'WWW-Authenticate: Bearer realm="api", error="invalid_token", error_description="The access token expired"',
    "Bearer tokens expire after one hour; send them as `Authorization: Bearer <token>`.",
    "passport.authenticate('bearer', { session: false })",
    "token_endpoint: https://auth.acme.dev/oauth/token\njwks_uri: https://auth.acme.dev/.well-known/jwks.json",
    "X-Signature-Algorithm: HMAC-SHA256\nX-Signature-Timestamp: 1764498161",
    "signature_version = s3v4\naddressing_style = virtual",
    "CREATE TABLE api_keys (id uuid PRIMARY KEY, key_hash text NOT NULL, created_at timestamptz);",
    "added 1203 packages, and audited 1204 packages in 32s\n\n187 packages are looking for funding",
    "Keyboard shortcuts: press ? to list them, Esc to close.",
    "The token budget for this run is 200000; 48211 used so far.",
    'req.Header.Set("Authorization", "Bearer "+tok)',
    "const headers = { Authorization: `Bearer ${accessToken}` };",
    "auth = HTTPBasicAuth(username, password)",
    'curl -u "$USER:$PASS" https://api.acme.dev/health',
    "mysql -h db -u app -p orders   # prompts for the password",
    "zip -e backup.zip dump.sql   # asks for a password",
    # test fixtures marked as such
    '# test fixture: not a real credential\nFAKE_PASSWORD = None\nFAKE_TOKEN = "<test-token>"',
    'def test_login_rejects_an_empty_password(client):\n    resp = client.post("/login", json={"user": "alice", "password": ""})\n    assert resp.status_code == 400',
    'assert mask("password=********") == "password=********"',
    "fixtures/users.yaml: user alice, role admin, mfa required",
]
