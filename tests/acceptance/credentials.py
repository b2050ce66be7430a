# ruff: noqa: E501  (tokens and one-line samples are as long as the real ones)
"""Credentials as agents print them (QA's own corpus), and ordinary text that must pass unchanged.

Each case: (name, text as an agent would print it, the parts that are secret). The tokens are
made up, in the shapes the vendors use.
"""

AWS_ID = "AKIAZ7QW3RT5YU8IOP2M"
AWS_SECRET = "q3Rf8Lk2+Zx9Wv0bNm4Tq7YpHs1Jd6Gc5Ea8Ur2I"
GH = "ghp_Qm7Zt2Lk9Xw4Rb8Nc1Vd5Hs3Jf6Gp0Ya2Ue4Io"
GH_FINE = (
    "github_pat_11AB3CDEF0a1B2c3D4e5F6_g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4y5Z6a7B8c9D0e1F2g3H4"
)
GL = "glpat-Xy7Rz9Qw2Lp4Mn6Bv8Ct"
SLACK_BOT = "xoxb-734829104832-5829103748291-Zq8Wl3Mx7Rt2Vb9Nc4Kd1Hs6"
SLACK_HOOK = "hooks.slack.com/services/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"
STRIPE = "sk_live_51Nq8WxL2mR7tV9bZ3cK4dH6sJ1fG0pY5aU8eI2oQ7wE3r"
OPENAI = "sk-proj-Tq9Zw2Lk7Xm4Rb8Nc1Vd5Hs3Jf6Gp0Ya2Ue4IoPq7Wx9Zl3Mk5Nj8Bh2Vg6Cf"
ANTHROPIC = "sk-ant-api03-Zq8Wl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya2Ue4IoPq7Wx9Zl3Mk5Nj8Bh2Vg6Cf1Dx4Ey7Fz0AbCdEfGh-IjKlMnAA"
GOOGLE = "AIzaSyD8q7Wm2Lx9Rt4Vb3Nc6Kd1Hs5Jf0Gp8Ya"
HF = "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"
NPM = "npm_Zq8Wl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya2Ue4"
SENDGRID = "SG.q8Wm2Lx7Rt4Vb9Nc3Kd1Hs.Zq8Wl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya2Ue4IoPq7W"
JWT = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhZ2VudC0xMjMiLCJzY29wZSI6ImRlcGxveSIsImV4cCI6MTc5NjAwMDAwMH0.Qw8Zl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya2Ue4IoPq7Wx9Zl3Mk5Nj8Bh2Vg6Cf1Dx4Ey7Fz0"
PEM_BODY = "MIIEowIBAAKCAQEAu8Zl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya2Ue4IoPq7Wx9Zl3Mk5Nj8Bh2Vg6Cf1Dx4Ey7Fz0Q"
AZ_KEY = "Xq7Rz9Qw2Lp4Mn6Bv8CtYu1Io3Pa5Sd7Fg9Hj0Kl2Zx4Cv6Bn8Mq1We3Rt5Yu7Io9Pa1Sd3Fg5Hj7Kl9Zx1Cv3Bn5Mq7We9=="
SAS_SIG = "kX9q2Lm7Rt4Vb8Nc3Kd1Hs6Jf5Gp0Ya%2BUe4IoPq7%3D"
AMZ_SIG = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
GOOG_SIG = "3b1c7e0d9a2f4b6c8e0a1d3f5b7c9e1a2c4e6f8a0b2d4f6a8c0e2a4c6e8a0b2d4f6a8c0e2a4c6e8a0b2d4f6a8c0e2a4c6e"
PG_PASS = "Vq8-mL2x!Rt7zP"
MONGO_PASS = "K9wq2LmX7tRb"
REDIS_PASS = "r3d1sKeyZq8Wl3"
BASIC = "YWRtaW46UzNjcjN0UGFzc3cwcmQh"
COOKIE_SESS = "8f3kq2lm7rt4vb9nc3kd1hs6jf5gp0ya"
CSRF = "Zq8Wl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya"
XAPI = "a7f3c9e1b5d24f8a9c0e6b1d3f5a7c9e"
GCP_KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Zl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5"
DIGEST_RESP = "6629fae49393a05397450978507c4ef1"
TOKEN_DRF = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"
OAUTH_CODE = "4/0AfJohXk9q2Lm7Rt4Vb8Nc3Kd1Hs6Jf5Gp0Ya"
ACCESS_FRAG = "ya29.a0AfB_byC9q2Lm7Rt4Vb8Nc3Kd1Hs6Jf5Gp0YaUe4IoPq7Wx9Zl3Mk5"
VAULT = "hvs.CAESIJq8Wl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya2Ue4IoPq7WxGh4KHGh2cy5aOGxvM"
PYPI = "pypi-AgEIcHlwaS5vcmcCJDk4ZjNjOWUxLWI1ZDItNGY4YS05YzBlLTZiMWQzZjVhN2M5ZQACKlszLCJhNzE1"
DOCKER_AUTH = "Ym9iOmRja3JfcGF0X3E4V20yTHg3UnQ0VmI5TmMzS2Qx"
DD = "d41d8cd98f00b204e9800998ecf8427e"
SENTRY_KEY = "7a1c3e5f9b2d4f6a8c0e1b3d5f7a9c2e"
TELEGRAM = "6123456789:AAFq8Wm2Lx7Rt4Vb9Nc3Kd1Hs6Jf5Gp0Ya2"
DISCORD_HOOK = "discord.com/api/webhooks/1187654321098765432/Zq8Wl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya2Ue4IoPq7Wx9Zl3Mk5Nj8Bh2Vg6Cf1Dx4E"
AZ_CLIENT_SECRET = "Q8w~Zl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya2Ue4"
KUBE_TOKEN = "eyJhbGciOiJSUzI1NiIsImtpZCI6IkZxOFcifQ.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0.Zq8Wl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya2Ue4IoPq7Wx9"
WHSEC = "whsec_Zq8Wl3Mx7Rt2Vb9Nc4Kd1Hs6Jf5Gp0Ya"
MYSQL_PASS = "tr0ub4dor&3xyz"
NETRC_PASS = "n3trcS3cretPw"
SSH_BODY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
DO = "dop_v1_" + "8f3a9c1d2e4b6f7a0c3d5e7f9a1b2c4d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b"
SHOPIFY = "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"
ENV_DBPASS = "pg!Zq8Wl3Mx7"
YAML_SECRET = "Zq8Wl3Mx7Rt2Vb9Nc4Kd1"
JSON_KEY = "live_Zq8Wl3Mx7Rt2Vb9Nc4Kd1Hs6"
CLI_PW = "Hunter2!Hunter2"
GENERIC_TOKEN = "q7Zp2Lk9Xw4Rb8Nc1Vd5Hs3Jf6"

CASES = [
    (
        "aws-env",
        f"export AWS_ACCESS_KEY_ID={AWS_ID}\nexport AWS_SECRET_ACCESS_KEY={AWS_SECRET}",
        [AWS_ID, AWS_SECRET],
    ),
    (
        "aws-credentials-file",
        f"[default]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}",
        [AWS_ID, AWS_SECRET],
    ),
    ("github-header", f"GET /repos/acme/api with header Authorization: token {GH}", [GH]),
    ("github-fine", f"Using GITHUB_TOKEN={GH_FINE} for the release", [GH_FINE]),
    ("gitlab-clone", f"git clone https://oauth2:{GL}@gitlab.com/acme/infra.git", [GL]),
    ("slack-bot", f"slack_sdk.WebClient(token='{SLACK_BOT}') posted to #deploys", [SLACK_BOT]),
    ("slack-webhook", f"POST https://{SLACK_HOOK} -> 200 ok", [SLACK_HOOK.rsplit("/", 1)[1]]),
    ("stripe", f'stripe.api_key = "{STRIPE}"', [STRIPE]),
    (
        "openai-curl",
        f'curl https://api.openai.com/v1/models -H "Authorization: Bearer {OPENAI}"',
        [OPENAI],
    ),
    ("anthropic-header", f"x-api-key: {ANTHROPIC}", [ANTHROPIC]),
    (
        "google-key-url",
        f"GET https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={GOOGLE}",
        [GOOGLE],
    ),
    ("hf", f"huggingface-cli login --token {HF}", [HF]),
    ("npmrc", f"//registry.npmjs.org/:_authToken={NPM}", [NPM]),
    ("sendgrid", f"SENDGRID_API_KEY='{SENDGRID}'", [SENDGRID]),
    (
        "jwt-bare",
        f"the session JWT is {JWT}, expires in 1h",
        [JWT.split(".")[2], JWT.split(".")[1]],
    ),
    (
        "pem",
        f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----",
        [PEM_BODY],
    ),
    (
        "azure-conn",
        f"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={AZ_KEY};EndpointSuffix=core.windows.net",
        [AZ_KEY[:40]],
    ),
    (
        "azure-sas",
        f"https://acmelogs.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&spr=https&sig={SAS_SIG}",
        [SAS_SIG],
    ),
    (
        "s3-presigned",
        f"https://acme-artifacts.s3.eu-west-1.amazonaws.com/build.tgz?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={AWS_ID}%2F20261201%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20261201T010203Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature={AMZ_SIG}",
        [AMZ_SIG],
    ),
    (
        "gcs-signed",
        f"https://storage.googleapis.com/acme-bucket/report.pdf?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Date=20261201T010203Z&X-Goog-Expires=900&X-Goog-SignedHeaders=host&X-Goog-Signature={GOOG_SIG}",
        [GOOG_SIG],
    ),
    (
        "postgres-url",
        f"connecting to postgresql://app_user:{PG_PASS}@db.internal:5432/orders",
        [PG_PASS],
    ),
    (
        "mongo-srv",
        f"MONGO_URI=mongodb+srv://admin:{MONGO_PASS}@cluster0.x7k2p.mongodb.net/prod?retryWrites=true",
        [MONGO_PASS],
    ),
    ("redis-url", f"redis.from_url('redis://:{REDIS_PASS}@cache.internal:6379/0')", [REDIS_PASS]),
    ("basic-header", f"Authorization: Basic {BASIC}", [BASIC]),
    ("proxy-auth", f"Proxy-Authorization: Basic {BASIC}", [BASIC]),
    (
        "cookie",
        f"Cookie: sessionid={COOKIE_SESS}; csrftoken={CSRF}; theme=dark",
        [COOKIE_SESS, CSRF],
    ),
    (
        "set-cookie",
        f"Set-Cookie: __Host-session={COOKIE_SESS}; Path=/; Secure; HttpOnly",
        [COOKIE_SESS],
    ),
    ("x-api-key-curl", f"curl -s -H 'X-API-Key: {XAPI}' https://api.acme.io/v2/orders", [XAPI]),
    ("x-auth-token", f"X-Auth-Token: {XAPI}", [XAPI]),
    ("token-bearer-kv", f"token=Bearer {GENERIC_TOKEN}", [GENERIC_TOKEN]),
    ("api-key-bearer-yaml", f"api_key: Bearer {GENERIC_TOKEN}", [GENERIC_TOKEN]),
    (
        "gcp-sa-json",
        '{"type": "service_account", "project_id": "acme-prod", "private_key_id": "3b1c7e0d9a2f4b6c8e0a1d3f5b7c9e1a2c4e6f8a", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        + GCP_KEY_BODY
        + '\\n-----END PRIVATE KEY-----\\n", "client_email": "deployer@acme-prod.iam.gserviceaccount.com"}',
        [GCP_KEY_BODY],
    ),
    (
        "digest",
        f'Authorization: Digest username="deploy", realm="api", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/v1/x", response="{DIGEST_RESP}"',
        [DIGEST_RESP],
    ),
    ("drf-token", f"Authorization: Token {TOKEN_DRF}", [TOKEN_DRF]),
    (
        "oauth-code",
        f"redirected to https://app.acme.io/callback?code={OAUTH_CODE}&state=xyz123",
        [OAUTH_CODE],
    ),
    (
        "access-fragment",
        f"https://app.acme.io/#access_token={ACCESS_FRAG}&token_type=Bearer&expires_in=3599",
        [ACCESS_FRAG],
    ),
    (
        "python-headers-repr",
        f"request headers: {{'Accept': 'application/json', 'Authorization': 'Bearer {GENERIC_TOKEN}'}}",
        [GENERIC_TOKEN],
    ),
    ("vault", f"VAULT_TOKEN={VAULT} vault kv get secret/payments", [VAULT]),
    ("pypi", f"twine upload -u __token__ -p {PYPI} dist/*", [PYPI]),
    (
        "docker-config",
        f'{{"auths": {{"registry.acme.io": {{"auth": "{DOCKER_AUTH}"}}}}}}',
        [DOCKER_AUTH],
    ),
    ("datadog", f"DD_API_KEY={DD}", [DD]),
    (
        "sentry-dsn",
        f"SENTRY_DSN=https://{SENTRY_KEY}@o450123.ingest.sentry.io/5512345",
        [SENTRY_KEY],
    ),
    (
        "telegram",
        f"POST https://api.telegram.org/bot{TELEGRAM}/sendMessage",
        [TELEGRAM.split(":")[1]],
    ),
    ("discord-webhook", f"webhook: https://{DISCORD_HOOK}", [DISCORD_HOOK.rsplit("/", 1)[1]]),
    ("azure-client-secret", f'AZURE_CLIENT_SECRET="{AZ_CLIENT_SECRET}"', [AZ_CLIENT_SECRET]),
    (
        "kubectl-token",
        f"kubectl --server=https://10.0.0.1:6443 --token={KUBE_TOKEN} get pods",
        [KUBE_TOKEN.split(".")[2]],
    ),
    ("stripe-whsec", f"STRIPE_WEBHOOK_SECRET: {WHSEC}", [WHSEC]),
    ("mysql-cli", f"mysql -h db -u root --password='{MYSQL_PASS}' orders", [MYSQL_PASS]),
    ("netrc", f"machine api.acme.io login deploy password {NETRC_PASS}", [NETRC_PASS]),
    (
        "openssh",
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SSH_BODY}\n-----END OPENSSH PRIVATE KEY-----",
        [SSH_BODY],
    ),
    ("digitalocean", f"doctl auth init -t {DO}", [DO]),
    ("shopify", f"X-Shopify-Access-Token: {SHOPIFY}", [SHOPIFY]),
    (
        "env-file",
        f"# .env\nDB_HOST=db.internal\nDB_PASSWORD={ENV_DBPASS}\nDEBUG=false",
        [ENV_DBPASS],
    ),
    (
        "yaml-secret",
        f"oauth:\n  client_id: acme-web\n  client_secret: {YAML_SECRET}\n  scopes: [read]",
        [YAML_SECRET],
    ),
    ("json-apikey", f'{{"service": "billing", "apiKey": "{JSON_KEY}", "retries": 3}}', [JSON_KEY]),
    ("cli-password", f"./deploy.sh --env prod --password={CLI_PW}", [CLI_PW]),
    (
        "private-token-header",
        f'curl --header "PRIVATE-TOKEN: {GL}" https://gitlab.acme.io/api/v4/projects',
        [GL],
    ),
]

PLAIN = [
    "The token bucket algorithm refills 10 tokens per second.",
    "Password reset emails are sent from noreply@acme.io within 5 minutes.",
    "Set the Authorization header on every request; see the docs.",
    "Keys in a YAML map are unordered: `key: value` pairs.",
    "Commit 9f3c2e1a4b changed PAYMENTS_DB_PORT from 5432 to 5433.",
    "Image digest sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 pulled.",
    "Task 5d3ae5cc-1625-483d-8881-9aeefca76acb finished in 3.00s.",
    "See https://docs.acme.io/search?q=token+rotation&page=2 for the rotation guide.",
    "def get_api_key(name: str) -> str:\n    return os.environ[name]",
    "2026-12-01T01:02:03Z INFO worker-3 processed 1200 messages (lag 0.4s)",
    "The cache key is user:42:profile and expires after 300s.",
    "smoke/checkout/test_payment.py::test_authorize FAILED",
    "psycopg.OperationalError: connection to payments-db:5433 refused",
    "api_key=<your-key>",
    "export DB_PASSWORD=${DB_PASSWORD}",
    "The secret to a good deploy is a canary stage.",
    "Bearer tokens expire after an hour; refresh them with the refresh flow.",
    "GET https://api.github.com/repos/acme/api/pulls?state=open&per_page=50 -> 200",
    "Found 3 keys in the keyring: primary, backup, legacy.",
    "Hash of the build: 4f2a9c1d83e6f0a5b9c2d4e7f1a3b7e4",
]
