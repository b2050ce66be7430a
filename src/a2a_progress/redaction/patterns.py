"""The redactor's built-in patterns: what a credential looks like, as regular expressions.

`a2a_progress.redaction.redactor` compiles them into one alternation and says what is
masked and what is not (its docstring is the rule); this module only spells the shapes out.
Each pattern is ``(name, regex)``; a ``<name>_keep`` group is the part that stays (a name, a
flag, a separator). Every one is linear on hostile text, and every match holds a literal listed in
`a2a_progress.redaction.prescan` (``tests/redaction/test_corpus.py`` checks both).
"""

from __future__ import annotations

from typing import Final

from a2a_progress.redaction.values import (
    COLON_VALUE,
    HEADER_NAME_WORD,
    HEADER_SEPARATOR,
    HEADER_VALUE,
    NAME_WORDS,
    NOT_A_SECRET,
    NOT_A_VALUE_NAME,
    PAIR_SEPARATOR,
    PAIR_VALUE,
    SCHEME,
    opening_quote,
    quoted_or,
)

# One shell argument (not a flag) of a command line.
_ARG: Final = r"(?!-)[^\s|;&<>]{1,256}+"
# A command-line secret: one argument, up to a shell operator (so masking twice changes nothing).
_TOOL_VALUE: Final = r"(?![<>|])[^\s\"';&|<>]+"
# An unquoted positional argument that reads as a password rather than a word of prose: eight
# characters or more, or one that is not a letter ("hunter22", "S3cret!"; not "to" or "the").
_PASSWORD_LIKE: Final = r"(?=[^\W\d_]{0,7}+(?![^\W\d_])[^\s\"'|;&<>]|[^\s\"'|;&<>]{8})"


def _args_then(flag: str) -> str:
    """A command's arguments up to ``flag`` (a regex), on the same line: at most 24 of them,
    none starting like the flag, read possessively so a line without it fails at once."""
    return rf"(?:[ \t]+(?!{flag})[^\s|;&<>]{{1,256}}+){{0,24}}+[ \t]+{flag}"


# Vendor tokens by shape. They share one look-behind (a token does not start mid-word), checked
# once per position for all of them; after it, each starts with a literal the engine tests
# before trying the rest, which halves the cost of a scan against one look-behind each. Not \b:
# it is Unicode-aware, so a token right after a CJK character or an accented letter (a word
# character, no boundary) would survive; the ASCII look-behind keeps \b's protection against
# "task-..." or "graphf_..." matching mid-word, for ASCII only.
TOKEN_START: Final = r"(?<![A-Za-z0-9_])"
TOKEN_SHAPES: Final[tuple[tuple[str, str], ...]] = (
    ("gitlab_token", r"gl(?:pat|dt|rt|ptt|cbt|soat)-[A-Za-z0-9_-]{20,}"),
    ("slack_token", r"(?:xox[abposre](?:\.xox[a-z])?|xapp)-[A-Za-z0-9-]{10,}"),
    ("stripe_key", r"(?:[sr]k_(?:live|test)|whsec)_[A-Za-z0-9]{16,}"),
    ("openai_style_key", r"sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"),
    ("google_api_key", r"AIza[0-9A-Za-z_-]{35}"),
    ("google_oauth", r"(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})"),
    ("npm_token", r"npm_[A-Za-z0-9]{36}"),
    ("huggingface_token", r"hf_[A-Za-z0-9]{30,}"),
    ("sendgrid_key", r"SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{20,64}"),
    ("twilio_sid", r"(?:AC|SK)[0-9a-f]{32}(?![A-Za-z0-9])"),
    ("databricks_token", r"dapi[0-9a-f]{32}(?:-\d+)?"),
    ("digitalocean_token", r"do[opr]_v1_[0-9a-f]{64}"),
    ("shopify_token", r"shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}"),
    ("atlassian_token", r"ATATT3[A-Za-z0-9_=-]{20,}"),
    ("pypi_token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    ("docker_token", r"dckr_pat_[A-Za-z0-9_-]{20,}"),
    ("vault_token", r"hv[sb]\.[A-Za-z0-9_-]{24,}"),
    ("square_token", r"sq0(?:atp|csp)-[0-9A-Za-z_-]{22,}"),
    ("postman_key", r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}"),
    ("linear_key", r"lin_api_[A-Za-z0-9]{40}"),
    ("newrelic_key", r"NRAK-[A-Z0-9]{27}"),
    ("grafana_token", r"(?:glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}|glc_[\w+/]{32,})"),
    ("mailgun_key", r"key-[0-9a-f]{32}"),
    ("sentry_token", r"sntry[su]_[A-Za-z0-9+/=_]{40,}"),
    ("figma_token", r"figd_[A-Za-z0-9_-]{40,}"),
    ("supabase_token", r"sbp_[0-9a-f]{40}"),
    ("netlify_token", r"nfp_[A-Za-z0-9]{36,}"),
    ("pulumi_token", r"pul-[0-9a-f]{40}"),
    ("terraform_token", r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"),
    ("groq_key", r"gsk_[A-Za-z0-9]{40,}"),
    ("replicate_token", r"r8_[A-Za-z0-9]{37}"),
    ("perplexity_key", r"pplx-[A-Za-z0-9]{40,}"),
    ("xai_key", r"xai-[A-Za-z0-9]{60,}"),
    ("langsmith_key", r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{10}"),
    ("notion_token", r"(?:secret_[A-Za-z0-9]{43}|ntn_[A-Za-z0-9]{40,})"),
    ("bitbucket_app_password", r"ATBB[A-Za-z0-9]{28,}"),
    ("facebook_token", r"EAA[A-Za-z0-9]{80,}"),
    ("braintree_token", r"access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}"),
    ("alibaba_key_id", r"LTAI[A-Za-z0-9]{20}"),
    ("tencent_secret_id", r"AKID[A-Za-z0-9]{32}"),
    ("heroku_token", r"HRKU-[A-Za-z0-9_-]{60,}"),
    # base64 of a numeric id (it has digits), a timestamp, an HMAC.
    ("discord_bot_token", r"[MNO](?=[A-Za-z]{0,26}\d)[A-Za-z0-9]{23,27}\.[\w-]{6}\.[\w-]{27,38}"),
)  # fmt: skip
# A key name never starts with a token: a token glued to a name ("key-<hex>X-Api-Key: …") is
# masked by its own pattern, not kept as part of the name.
_NO_TOKEN_HERE: Final = rf"(?!{'|'.join(pattern for _, pattern in TOKEN_SHAPES)}|eyJ[\w-]{{5,}}\.)"


# A symbol inside a bearer token (not a delimiter, nor a letter or a digit).
_BEARER_SYMBOL: Final = r"[^\sA-Za-z0-9\"'`,;<>()\[\]{}\\]"


# Each entry: (group name, pattern). A pattern may define a group named "<name>_keep": that
# prefix (a header or key name and its separator) is kept, and the rest of the match masked.
BUILTIN_PATTERNS: Final[tuple[tuple[str, str], ...]] = (
    # The AWS and GitHub shapes are distinctive enough to be masked wherever they occur.
    ("aws_access_key_id", r"(?:A(?:KIA|SIA|BIA|CCA|IDA|ROA|IPA|NPA|NVA|PKA|GPA))[0-9A-Z]{16}"),
    ("github_token", r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("telegram_bot_token", r"(?<![0-9])[0-9]{8,10}:AA[0-9A-Za-z_-]{33,}"),
    ("azure_client_secret", r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}"),
    ("age_secret_key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    (
        # Also inside a JSON string (a service-account file), where the newlines are "\n".
        "private_key",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----"
        r"[\s\S]*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----|\Z)",
    ),
    (
        "auth_header",
        # No look-behind: "proxyAuthorization:" and "…key1Authorization:" are headers too. The
        # header may be a (name, value) pair of quoted strings: setHeader("Authorization",
        # "Basic …"), gRPC metadata tuples.
        r"(?P<auth_header_keep>(?i:(?:proxy-)?authorization)"
        # The pair's value starts with a scheme word: a list of header names ("Authorization",
        # "Content-Type") or a JSON object's next key ("name": "Authorization", "value": …) is
        # not one.
        r"(?>(?:\\?[\"'][ \t]*,[ \t]*(?=[fFrRbBuU]{0,2}\\?[\"']"
        + SCHEME
        + r"[ \t])|"
        + HEADER_SEPARATOR
        + ")"
        + opening_quote("ah") + "))"
        + quoted_or("ah", HEADER_VALUE, NOT_A_SECRET),
    ),
    (
        # Every pair of the header; a value must start "name=" ("Cookie: chocolate" is prose).
        "cookie_header",
        r"(?P<cookie_header_keep>(?<![A-Za-z0-9_-])(?i:(?:set-)?cookie2?)"
        rf"(?>{HEADER_SEPARATOR}{opening_quote('ck')}))"
        r"(?=[^\s=;\"'\\]{1,256}+=)" + quoted_or("ck", HEADER_VALUE),
    ),
    (
        "webhook_url",
        r"(?P<webhook_url_keep>(?i:hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"|discord(?:app)?\.com/api/webhooks/|webhook\.office\.com/webhookb2/"
        r"|outlook\.office(?:365)?\.com/webhook/))"
        r"[^\s\"'<>?#]+",
    ),
    (
        "url_credentials",
        r"(?P<url_credentials_keep>(?<![a-zA-Z0-9+.-])(?>[a-zA-Z0-9+.-]*?\b(?=[a-zA-Z]))"
        # The user may be empty (redis://:pw@); an "@" in the password is part of it when
        # another "@" follows before the host.
        r"[a-zA-Z0-9+.-]*+://[^\s:/@]*:)(?:[^\s@/]|@(?=[^\s/@]*+@))+(?=@)",
    ),
    (
        # A token as the whole user info: https://<token>@github.com, a Sentry DSN. A user name
        # ("git@", "deploy@") is short; an e-mail address has no "//" before it.
        "url_token_user",
        r"(?P<url_token_user_keep>://)[A-Za-z0-9_~.-]{20,}+(?=@)",
    ),
    (
        # curl -u user:password, --user, --proxy-user; "-u user -p password" (docker, mysql).
        "basic_user",
        r"(?P<basic_user_keep>(?<![\w-])(?:(?:-u|--user|--proxy-user)(?:[ \t]+|=)[\"']?"
        r"[^\s:\"']{1,256}+:(?!//)|-u[ \t]+\S{1,256}+[ \t]+-p[ \t]*))"
        # Up to a shell operator, as tool_password's values: masking twice changes nothing.
        rf"{NOT_A_SECRET}[^\s\"';&|<>]+",
    ),
    (
        "netrc",
        r"(?P<netrc_keep>(?<![\w-])(?i:login)\s+\S{1,256}+\s+(?i:password)[ \t]+)\S+",
    ),
    (
        # --token abc, --client-secret "x y" (with "=", it is a secret_pair). A "--no-…" flag
        # is a switch ("--no-auth-warning"): what follows it is not its value.
        "cli_flag",
        rf"(?P<cli_flag_keep>(?<![\w-])-(?!-?no-)-?(?i:(?=[\w-]*?{NAME_WORDS})[\w-]++"
        rf"{NOT_A_VALUE_NAME}|cookie)(?>[ \t]+(?![-<>|]){opening_quote('cf')}))"
        + quoted_or("cf", PAIR_VALUE, NOT_A_SECRET),
    ),
    (
        "secret_pair",
        r"(?P<secret_pair_keep>(?<![\w.-])(?<!\$\{)(?i:"
        # Most words are not followed by a separator: that cheap test comes before the search
        # for a credential word in the name, which costs a try of every word at every offset.
        rf"(?=[\w.-]++{PAIR_SEPARATOR}){_NO_TOKEN_HERE}(?=[\w.-]*?{NAME_WORDS})[\w.-]++"
        rf"{NOT_A_VALUE_NAME}"
        r"|(?:api|access|secret|private|account|auth) key"
        r"|x-[\w-]{0,60}+(?<=key))"
        r"(?>\\?[\"']?\]?[ \t]*(?:=>|:=|(?P<sp_colon>:)|=(?!=))"
        rf"[ \t]*{opening_quote('sp')}))"
        + quoted_or("sp", f"(?(sp_colon){COLON_VALUE}|{PAIR_VALUE})", NOT_A_SECRET),
    ),
    (
        # Query parameters whose bare name is a credential only in a URL: Google's "key",
        # Azure SAS "sig", an OAuth authorization "code".
        "query_param",
        r"(?P<query_param_keep>(?<=[?&;#])(?i:key|sig|signature|code|auth|jwt|pass)=)"
        r"[^&#\s\"'<>]+",
    ),
    (
        "xml_element",
        r"(?P<xml_element_keep><(?i:[\w:.-]{0,40}?(?:password|secret|token|api_?key|accesskey)"
        r"[\w:.-]{0,40}+)>)[^<\r\n]{1,1024}+(?=</)",
    ),
    (
        # .NET settings: <add key="ApiKey" value="..." />.
        "config_attribute",
        r"(?P<config_attribute_keep>(?<![\w-])(?i:(?:key|name)=\"(?=[^\"]{0,80}?"
        rf"(?:{NAME_WORDS}|{HEADER_NAME_WORD}))[^\"]{{1,80}}+\"[ \t]+value=\"))[^\"\r\n]+",
    ),
    (
        # A token has a digit or a symbol inside it, or is long: "bearer of bad news" and
        # "bearer bonds." are prose. It runs to a blank or a delimiter, whatever its symbols
        # ("Hunter2!x#9"), or is quoted ("Bearer \"…\""), its quotes kept. A flag is not one:
        # in "http --auth-type bearer -a TOKEN" the token is -a's value.
        "bearer",
        r"(?P<bearer_keep>(?<![A-Za-z0-9_])(?i:bearer)[ \t]+(?P<bearer_q>[\"'])?)"
        r"(?!--?[A-Za-z][A-Za-z-]{0,30}+(?![^\s=]))"
        rf"(?=[A-Za-z]*+(?:[0-9]|{_BEARER_SYMBOL}[^\s\"'`,;<>()\[\]{{}}\\])|[A-Za-z]{{16}})"
        rf"{NOT_A_SECRET}"
        r"(?(bearer_q)(?:(?!(?P=bearer_q))[^\\\r\n]|\\[^\r\n]){1,1024}+(?=(?P=bearer_q))"
        r"|[^\s\"'`,;<>()\[\]{}\\]+)",
    ),
    (
        "jwt",
        r"(?P<jwt_keep>(?<![A-Za-z0-9_-])(?>(?:[A-Za-z0-9_-]*?-)?(?=eyJ[A-Za-z0-9_-]{5})))"
        r"eyJ[A-Za-z0-9_-]{5,}+\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
    ),
)  # fmt: skip


# Patterns of commands, config lines and cookies: rare in text, and each alternative costs the
# scan of every text that wakes the pre-scan, so they are a second regex, used only for a text
# that holds one of their own literals (prescan.patterns_possible).
COMMAND_PATTERNS: Final[tuple[tuple[str, str], ...]] = (
    (
        # Tools whose password flag is a short one that means something else elsewhere ("-p"
        # is a port to ssh and docker run), so each is known by its command: redis-cli -a,
        # sshpass -p, docker/podman/az login -p, ldap* -w, ssh-keygen -N/-P, mysql -pPASS
        # (glued: "-p db" prompts), sqlcmd -P, mongosh -p, htpasswd -b's last argument,
        # vault login TOKEN, npm config set …:_authToken TOKEN, httpie's -a, and the password
        # arguments of net use, wpa_passphrase and nmcli, and Wi-Fi pre-shared keys. One
        # pattern: each pattern of the alternation costs the scan at every position (the Wi-Fi
        # keys as a pattern of their own made the full scan of clean text 6% slower), an
        # alternative inside one that starts with a literal almost nothing.
        "tool_password",
        # A command may be named by its path ("/usr/sbin/wpa_passphrase").
        r"(?P<tool_password_keep>(?:(?<![\w./-])(?:/(?:[\w.-]{1,60}+/){0,8}+)?"
        r"(?:redis-cli" + _args_then(r"-a[ \t]+")
        + r"|sshpass" + _args_then(r"-p[ \t]*")
        + r"|(?:docker|podman|nerdctl|buildah|skopeo|oras|az|helm[ \t]+registry)[ \t]+login"
        + _args_then(r"-p[ \t]+")
        + r"|ldap[a-z]{0,12}+" + _args_then(r"-w[ \t]+")
        + r"|ssh-keygen" + _args_then(r"-[NP][ \t]+")
        + r"|(?:mysql|mariadb)[a-z-]{0,12}+" + _args_then("-p")
        + r"|(?:sqlcmd|bcp)" + _args_then(r"-P[ \t]+")
        + r"|mongo(?:sh|dump|restore|import|export)?" + _args_then(r"-p[ \t]+")
        + r"|vault login(?:[ \t]+-\S{1,256}+){0,24}+[ \t]+(?![\w.-]{1,60}+=)"
        # -b takes the password from the command line; -n has no file before the user.
        r"|htpasswd(?=[^\r\n]{0,60}?[ \t]-[A-Za-z]{0,7}b)"
        r"(?:[ \t]+-[A-Za-z]{1,8}+(?:[ \t]+[0-9]{1,3}+)?){1,4}+"
        rf"[ \t]+{_ARG}(?>(?:[ \t]+{_ARG}(?=[ \t]+[^\s|;&<>]))?)[ \t]+"
        # Commands that store a secret: the value after the name.
        r"|(?:npm|pnpm|yarn)[ \t]+config set[ \t]+(?:--?[\w-]{1,40}+[ \t]+)?"
        r"(?=[^\s=]{0,256}?(?i:authtoken|_auth|_password))[^\s=]{1,256}+[ \t]+"
        r"|aws configure[ \t]+set[ \t]+(?=[^\s=]{0,256}?(?i:secret|token))[^\s=]{1,256}+[ \t]+"
        r"|dotnet[ \t]+user-secrets[ \t]+set[ \t]+(?:\"[^\"\r\n]{1,256}+\"|[^\s\"]{1,256}+)[ \t]+"
        r"|gh[ \t]+secret set" + _args_then(r"(?:-b|--body)[ \t]+")
        + r"|--from-literal=[^\s=]{1,256}+="
        # curl -b sends cookies; smbclient and friends take -U user%password.
        r"|curl" + _args_then(r"-b[ \t]+(?=[\"']?[^\s\"'=;]{1,256}+=)")
        + r"|-U[ \t]+[\w.\\@-]{1,256}+%"
        # openssl's -passin/-passout/-pass take "pass:PASSWORD" (or env:VAR, file:PATH).
        r"|-pass(?:in|out)?[ \t]+[\"']?pass:"
        # httpie's and xh's short auth flag, "http -a user:password": the whole value, as
        # --auth's (a cli_flag). Unquoted, it has a ":" or a digit (a token has): "-a alice" is
        # a user whose password httpie asks for, "http -a is its auth flag" prose. (A guard
        # that a mask could satisfy, such as a length, would make a second scan mask more.)
        r"|(?:https?|xhs?)" + _args_then(r"-a[ \t]+") + r"(?P<tp_auth>)"
        # Positional passwords (tp_word: unquoted, a value must read as one, _PASSWORD_LIKE, and
        # not be a flag).
        # Windows' "net use \\srv\share PASSWORD /user:DOMAIN\user": after the share, or
        # after /user: (accepted there too); "*" asks for it, "/…" is a switch. ASCII-only case
        # folding, "(?ai:", so that the pre-scan's lowered literal always holds.
        + r"|(?:(?ai:net use)"
        + _args_then(r"(?:\\\\|(?ai:/u(?:ser)?:))[^\s|;&<>]{1,256}+[ \t]+(?!/|\*(?!\S))")
        # wpa_passphrase SSID PASSPHRASE (without one, it reads the passphrase from stdin).
        + r"|wpa_passphrase[ \t]+"
        r"(?:\"[^\"\r\n]{1,64}+\"|'[^'\r\n]{1,64}+'|(?![\"'])[^\s|;&<>]{1,256}+)[ \t]+"
        # NetworkManager: "nmcli device wifi connect SSID password PW", and a connection's
        # secret properties ("nmcli connection modify X wifi-sec.psk PW", 802-1x.password,
        # wifi-sec.wep-key0); "password-flags" and "wifi-sec.key-mgmt wpa-psk" are not secrets.
        r"|nmcli" + _args_then(r"(?:wifi|c(?:onn?(?:ection)?)?)(?=[ \t])")
        + _args_then(
            r"(?:password|[\w-]{1,60}+\.(?:[\w-]{0,40}?-)?(?:psk|password|wep-key[0-3]))[ \t]+"
        )
        + r")(?P<tp_word>)"
        r")"
        # Wi-Fi pre-shared keys, a pair's value (tp_psk): wpa_supplicant's psk="…" (unquoted:
        # 64 hex digits), hostapd's wpa_psk=, NetworkManager's psk=, iwd's PreSharedKey=
        # (hostapd's wpa_passphrase= and iwd's Passphrase= are secret_pairs). Not after a
        # letter or a digit ("pskey=" is not one), after anything else ("WIFI_PSK=").
        r"|(?<![A-Za-z0-9])(?ai:psk|presharedkey)[ \t]*+=(?!=)[ \t]*+(?P<tp_psk>)"
        r")(?>" + opening_quote("tp") + "))"
        + quoted_or(
            "tp",
            rf"(?(tp_psk){PAIR_VALUE}|"
            r"(?(tp_auth)(?=[^\s\"';&|<>:0-9]{0,256}+[:0-9]))"
            rf"(?(tp_word)(?!-){_PASSWORD_LIKE}){_TOOL_VALUE})",
            NOT_A_SECRET,
        ),
    ),
    (
        # Config-file lines: ldap.conf's bindpw, slapd's rootpw, redis.conf's requirepass and
        # masterauth (no "=" or ":" between name and value).
        "config_directive",
        r"(?P<config_directive_keep>(?<![^\r\n])[ \t]{0,40}+"
        r"(?i:bindpw|rootpw|requirepass|masterauth|olcrootpw:)[ \t]+)"
        + rf"{NOT_A_SECRET}[^\s\"']+",
    ),
    (
        # A .pgpass line, host:port:database:user:password (the host has a letter, a dot or is
        # "*", so a time of day "12:00:01:…" is not one).
        "pgpass",
        r"(?P<pgpass_keep>(?<![\w.:/@*-])(?=[\w.*-]{0,253}[A-Za-z.*])[\w.*-]{1,253}+"
        r":(?:[0-9]{1,5}+|\*):[^\s:]{1,256}+:[^\s:]{1,256}+:)"
        + rf"{NOT_A_SECRET}[^\s\"']+",
    ),
    (
        # Session cookies by name, wherever the pair is written (a log line, document.cookie):
        # express's sid / connect.sid, Rails' _app_session, Laravel's laravel_session, the
        # __Host- / __Secure- prefixes (JSESSIONID, PHPSESSID, sessionid are key words).
        "session_cookie",
        r"(?P<session_cookie_keep>(?<![\w.-])(?:(?:connect\.|rack\.)?sid|laravel_session"
        r"|_[\w-]{0,60}?session(?:_id)?|(?i:__(?:host|secure)-)[\w.-]{1,100}+)=)"
        + rf"{NOT_A_SECRET}[^\s\"',;&}}]+",
    ),
    (
        # Any cookie printed as a Set-Cookie value without the header ("session=…; Path=/;
        # HttpOnly", as requests or curl -c show it): a pair followed by a cookie attribute.
        "cookie_attributes",
        r"(?P<cookie_attributes_keep>(?<![\w.%=-])"
        r"(?!(?i:path|domain|expires|max-age|samesite|priority)=)[\w.%-]{1,256}+=)"
        r"[^\s;,\"'=]{1,4096}+=*+(?=;[ \t]*(?i:(?:path|domain|expires|max-age|samesite"
        r"|priority)=|(?:httponly|secure|partitioned)\b))",
    ),
)  # fmt: skip
