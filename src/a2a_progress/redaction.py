"""Credential masking for anything that may be logged: envelope text and telemetry content.

The spec (rule 6) treats envelopes as "may be logged". The producer passes every text field and
the fallback text through a :class:`Redactor` before encoding, and the OpenTelemetry bridge does
the same before content reaches a span. All patterns are compiled into one alternation, so a text
is scanned once however many patterns there are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

MASK: Final = "[REDACTED]"

# Each entry: (group name, pattern). A pattern may define a group named "<name>_keep": that
# prefix (a header or key name and its separator) is kept, and the rest of the match masked.
_BUILTIN_PATTERNS: Final[tuple[tuple[str, str], ...]] = (
    (
        "private_key",
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----"
        r"[\s\S]*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----|\Z)",
    ),
    (
        "auth_header",
        r"(?P<auth_header_keep>(?<![A-Za-z0-9_])(?i:(?:proxy-)?authorization)[\"']?\s*[:=]\s*"
        r"[\"']?)(?:(?!-----BEGIN)[^\r\n\"'])+",
    ),
    (
        # A token has a digit or token punctuation, or is long: "bearer of bad news" is prose.
        "bearer",
        r"(?P<bearer_keep>(?<![A-Za-z0-9_])(?i:bearer)\s+)"
        r"(?=[A-Za-z]*[0-9\-._~+/]|[A-Za-z]{16})[A-Za-z0-9\-._~+/]+=*",
    ),
    (
        "url_credentials",
        r"(?P<url_credentials_keep>(?<![a-zA-Z0-9+.-])(?>[a-zA-Z0-9+.-]*?\b(?=[a-zA-Z]))"
        r"[a-zA-Z0-9+.-]*+://[^\s:/@]*:)[^\s@/]+(?=@)",  # the user may be empty (redis://:pw@)
    ),
    (
        "jwt",
        r"(?P<jwt_keep>(?<![A-Za-z0-9_-])(?>(?:[A-Za-z0-9_-]*?-)?(?=eyJ[A-Za-z0-9_-]{5})))"
        r"eyJ[A-Za-z0-9_-]{5,}+\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*",
    ),
    # Not \b: it is Unicode-aware, so a token right after a CJK character or an accented
    # letter (a word character, no boundary) would survive. The ASCII look-behind keeps \b's
    # protection against "task-..." or "graphf_..." matching mid-word, for ASCII only. The
    # AWS and GitHub shapes are distinctive enough to be masked wherever they occur.
    ("aws_access_key_id", r"(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA)[0-9A-Z]{16}"),
    ("github_token", r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ("gitlab_token", r"(?<![A-Za-z0-9_])glpat-[A-Za-z0-9_-]{20,}"),
    ("slack_token", r"(?<![A-Za-z0-9_])xox[abposr]-[A-Za-z0-9-]{10,}"),
    ("stripe_key", r"(?<![A-Za-z0-9_])[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("openai_style_key", r"(?<![A-Za-z0-9_])sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}"),
    ("google_api_key", r"(?<![A-Za-z0-9_])AIza[0-9A-Za-z_-]{35}"),
    ("npm_token", r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}"),
    ("huggingface_token", r"(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}"),
    (
        "secret_pair",
        r"(?P<secret_pair_keep>(?i:(?<![\w.-])(?=[\w.-]*?(?:password|passwd|pwd|secret"
        r"|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|token(?!s|iz)))[\w.-]*+)"
        r"[\"']?\s*[:=]\s*[\"']?)(?:(?!-----BEGIN)[^\s\"',;&}])+",
    ),
)


# Literals (lower case) at least one of which every built-in pattern's match contains. Most text
# holds none of them, and a few substring searches in C cost far less than the alternation,
# which Python's engine tries at every position (~1 us per character of text).
_TRIGGERS: Final = (
    "-----begin", "authorization", "bearer", "://", "eyj",
    "akia", "asia", "abia", "acca", "aida", "aroa",
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox",
    "k_live_", "k_test_", "sk-", "aiza", "npm_", "hf_",
)  # fmt: skip
# The key words of key=value pairs are common in prose ("tokens"): for them, the cheap test is
# whether one is followed by the separator, as a match of the secret_pair pattern must be.
_PAIR_WORDS: Final = ("password", "passwd", "pwd", "secret", "credential", "token", "key")
_PAIR_HINT: Final = re.compile(
    r"(?:password|passwd|pwd|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|credential|token(?!s|iz))[\w.-]{0,256}+[\"']?\s*[:=]"
)  # bounded and possessive: linear even on "token_token_token..." (no separator to find)


def _may_hold_builtin_secret(text: str) -> bool:
    lowered = text.lower()
    if any(trigger in lowered for trigger in _TRIGGERS):
        return True
    return any(word in lowered for word in _PAIR_WORDS) and _PAIR_HINT.search(lowered) is not None


_GLOBAL_FLAGS: Final = re.compile(r"\A\(\?([aiLmsux]+)\)")


def _scoped(pattern: str) -> str:
    """``(?i)x`` as ``(?i:x)``: global flags are only legal at the start of the whole regex."""
    re.compile(pattern)  # a bad pattern fails here, naming itself rather than the alternation
    flags = _GLOBAL_FLAGS.match(pattern)
    if flags is None:
        return pattern
    return f"(?{flags.group(1)}:{pattern[flags.end() :]})"


class Redactor:
    """Masks credentials in text with :data:`MASK`.

    Args:
        extra_patterns: more regular expressions whose whole match is masked.
        enabled: ``False`` makes :meth:`redact` return its input unchanged.
    """

    __slots__ = ("_always_scan", "_enabled", "_keep_groups", "_regex")

    def __init__(self, extra_patterns: Iterable[str] = (), *, enabled: bool = True) -> None:
        patterns = list(_BUILTIN_PATTERNS)
        patterns += [(f"extra_{i}", _scoped(pattern)) for i, pattern in enumerate(extra_patterns)]
        self._regex = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in patterns))
        self._keep_groups = {
            name: f"{name}_keep" for name, pattern in patterns if "_keep>" in pattern
        }
        self._enabled = enabled
        # Extra patterns have no known literal: with any, every text is scanned.
        self._always_scan = bool(patterns[len(_BUILTIN_PATTERNS) :])

    @property
    def enabled(self) -> bool:
        """Whether this redactor masks anything."""
        return self._enabled

    def _replace(self, match: re.Match[str]) -> str:
        name = match.lastgroup or ""
        keep_group = self._keep_groups.get(name)
        return (match.group(keep_group) if keep_group else "") + MASK

    def _needs_scan(self, text: str) -> bool:
        return self._enabled and (self._always_scan or _may_hold_builtin_secret(text))

    def redact(self, text: str) -> str:
        """Return ``text`` with every credential masked."""
        if not self._needs_scan(text):
            return text
        return self._regex.sub(self._replace, text)

    def redact_counted(self, text: str) -> tuple[str, int]:
        """Like :meth:`redact`, and also return how many credentials were masked."""
        if not self._needs_scan(text):
            return text, 0
        return self._regex.subn(self._replace, text)


DEFAULT_REDACTOR: Final = Redactor()
"""The redactor used when none is given: every built-in pattern, on."""
