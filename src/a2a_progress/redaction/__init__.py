"""Credential masking for anything that may be logged: envelope text and telemetry content.

The protocol treats envelopes as "may be logged". The producer passes every text field and
the fallback text through one `Redactor` before encoding, and the OpenTelemetry bridge
does the same before content reaches a span (the same ``DEFAULT_REDACTOR`` unless told
otherwise). A stream of pieces (thinking chunks, a tool's output) is redacted per stream by a
`a2a_progress.redaction.stream.StreamRedactor`, so a secret split across pieces is masked
in each.

How a text is decided, in order (each step masks whole values, keeping names, separators and
quotes, and never masks a value that is already a mask):

1. **Vendor shapes and labels** (``patterns.py``): a token whose shape a vendor fixes (``ghp_…``,
   ``AKIA…``, ``sk-…``, JWTs, PEM private keys …), anywhere; and the value of anything whose name
   holds a credential word — ``password``, ``passwd``, ``passphrase``, ``pwd``, ``secret``,
   ``token`` (not ``tokens``/``tokenizer``), ``credential``, ``api_key``, ``…_key`` after
   ``access``/``private``/``client``/``signing``…, ``auth`` after ``_``/``-``/a quote,
   ``sessionid`` — as a header, ``key=value``, ``key: value``, JSON, YAML, ``.env``, a CLI flag,
   URL user info, a query parameter, an XML element, quoted or not, after a scheme word or not
   (``Authorization: Bearer "…"``, ``token=Basic '…'``: a scheme word alone is no value);
   plus command lines whose password flag is the tool's own (``redis-cli -a``, ``sshpass -p``,
   ``mysql -pPASS`` …). A name that only talks *about* a credential (``token_count``,
   ``password_file``, ``token_url``, ``--password-stdin``) is not a credential's name.
2. **Context without a separator** (``context.py``): a credential's name, then blanks or a table
   rule (CLI tables); ``PASSWORD '…'`` and ``IDENTIFIED BY '…'`` (SQL); ``('DB_PASSWORD', '…')``;
   a call or auth tuple whose name holds a credential word (``setPassword("…")``,
   ``auth=("u", "…")``); a ``name``/``value`` pair of fields (Kubernetes env, JSON, Hadoop XML);
   a YAML block scalar under a credential's name; a literal piped into a command that reads a
   secret; ``-storepass``/``-P``/glued ``-p`` flags; ``user/password@host``. Where nothing but the
   position says "secret" (a name then blanks, a flag, a pipe), the value must also *read* as a
   password (six characters or more, two of lower/upper/digit/symbol, with a digit or a symbol,
   not words joined by separators) or as random.
3. **Encodings** (``decoding.py``): the same steps over a decoded view of the text (HTML
   entities, URL-encoding, JSON string and shell escapes, three levels); what they mask there is
   masked in the text, raw or encoded. A base64 run that decodes to text holding a credential or
   a private key is masked whole.
4. **Randomness** (``unlabelled.py``, ``evidence.py``): a run of 20 letters and digits or more
   (28 after an API object id's prefix such as ``ch_``) mixing two of lower/upper/digit, switching
   between them often and with near-maximal entropy — unless it is structurally public: hex of
   any length (digests, commit and trace ids, UUIDs), a ULID, base64 media (``iVBORw0KGgo…``,
   ``data:…;base64,``), a digest prefix (``sha256:``, ``sha512-``, ``h1:``), an SSH public key
   blob, inside a PEM block holding no private key, the local part of an address, or named as an
   id, a digest, a fingerprint, a public key or a recipient.
5. **Your rules** (``gitleaks.py``): a gitleaks file's rules and allow-lists
   (`Redactor.from_gitleaks`), and extra regular expressions (``extra_patterns``).

Never a secret, whatever its name says (``values.py``): literals (``None``, ``true``, ``yes``),
placeholders and templates (``<token>``, ``${VAR}``, ``${VAR:default}``, ``{{ secrets.X }}``,
``$VAR``, ``%VAR%``, ``YOUR_…``, ``sk-...``), masks tools print (``****``, ``[MASKED]``,
``(sensitive value)``, ``<redacted>``), paths, YAML tags, types (``SecretStr = Field(...)``),
code that fetches or names the secret (``os.environ[...]``, ``settings.API_KEY``,
``password=password``), and secret *names* (``stripe-api-key``, ``prod/db/password``).

Every pass is linear in the text (bounded or possessive quantifiers, bounded look-arounds and
bounded work per candidate); masking twice changes nothing.
"""

from a2a_progress.redaction.redactor import DEFAULT_REDACTOR, Redactor
from a2a_progress.redaction.values import MASK

__all__ = ["DEFAULT_REDACTOR", "MASK", "Redactor"]
