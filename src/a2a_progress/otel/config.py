"""Bridge settings: instrumentor arguments first, then environment variables, then defaults."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from a2a_progress.envelope import HARD_LIMIT_BYTES
from a2a_progress.redaction import DEFAULT_REDACTOR, Redactor
from a2a_progress.redaction.gitleaks import RulesError

ENV_CAPTURE_CONTENT: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_CAPTURE_CONTENT"
ENV_CONTENT_MAX_LENGTH: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_CONTENT_MAX_LENGTH"
ENV_MAX_EVENTS: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_MAX_EVENTS"
ENV_SIDES: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_SIDES"
ENV_REDACT_PATTERNS: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_REDACT_PATTERNS"
ENV_REDACT_RULES: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_REDACT_RULES"
ENV_PENDING_SPANS: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_PENDING_SPANS"
ENV_INVOKE_AGENT_SPAN: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_INVOKE_AGENT_SPAN"
ENV_SIGTERM_HANDLER: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_SIGTERM_HANDLER"
ENV_MIRROR_SPANS: Final = "OTEL_INSTRUMENTATION_A2A_PROGRESS_MIRROR_SPANS"
# Read by every GenAI instrumentation of opentelemetry-python-contrib: operators set it once to
# turn GenAI content on or off everywhere. Ours (ENV_CAPTURE_CONTENT) wins when both are set.
ENV_GENAI_CAPTURE_CONTENT: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"

logger = logging.getLogger(__name__)

SIDE_CALLER: Final = "caller"
SIDE_CALLEE: Final = "callee"
_ALL_SIDES: Final = frozenset({SIDE_CALLER, SIDE_CALLEE})

DEFAULT_CONTENT_MAX_LENGTH: Final = 4096
DEFAULT_MAX_EVENTS: Final = 128
# Identifiers and names from a peer (tool names, task ids, stream keys) are bounded tighter.
NAME_MAX_LENGTH: Final = 256


def _parse_bool(value: str) -> bool | None:
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    return None


# Its values: contrib's older packages read "true" / "false"; opentelemetry-util-genai's enum
# says where content goes. Ours are span attributes and span events, so any of the three
# content modes turns it on.
_GENAI_CONTENT_ON: Final = frozenset({"span_only", "event_only", "span_and_event"})
_GENAI_CONTENT_OFF: Final = frozenset({"no_content"})


def _parse_genai_capture(value: str) -> bool | None:
    lowered = value.strip().lower()
    if lowered in _GENAI_CONTENT_ON:
        return True
    if lowered in _GENAI_CONTENT_OFF:
        return False
    return _parse_bool(lowered)


def _parse_int(value: str) -> int | None:
    try:
        return int(value.strip())
    except ValueError:
        return None


def _parse_sides(value: str) -> frozenset[str]:
    words = {word.strip().lower() for word in value.replace(";", ",").split(",") if word.strip()}
    if "both" in words or "all" in words:
        return _ALL_SIDES
    if "none" in words:
        return frozenset()
    return frozenset(words & _ALL_SIDES) or _ALL_SIDES


def _sides_of(given: str | Iterable[str] | None, environ: Mapping[str, str]) -> frozenset[str]:
    """The ``sides`` argument read as words, like the environment variable (``"caller"``,
    ``"both"``: a string is never taken as its letters), or as a collection of sides; when not
    given, the environment variable's words."""
    if given is None:
        return _parse_sides(environ.get(ENV_SIDES, "both"))
    if isinstance(given, str):
        return _parse_sides(given)
    return frozenset(str(side).strip().lower() for side in given) & _ALL_SIDES


def _redactor_with(patterns: list[str], rules_path: str = "") -> Redactor:
    if rules_path:
        try:
            return Redactor.from_gitleaks(rules_path, patterns)
        except (RulesError, re.error) as exc:
            # A bad rules file must not stop the agent: said once, at startup, naming the rule.
            logger.error("%s: %s; the file's rules are not used", ENV_REDACT_RULES, exc)
    if not patterns:
        return DEFAULT_REDACTOR
    try:
        return Redactor(patterns)
    except re.error:
        logger.warning(
            "%s has an invalid pattern; using the built-in patterns", ENV_REDACT_PATTERNS
        )
        return DEFAULT_REDACTOR


@dataclass(frozen=True, slots=True)
class BridgeConfig:
    """What the bridge records.

    ``content_max_length`` is in UTF-8 bytes per value, clamped to the 64 KiB hard limit;
    ``max_events_per_span`` keeps the first half and the latest half of a span's events.
    ``pending_spans`` exports a zero-length marker span under each tool span as it opens, so a
    trace backend shows the tools running now (a span is exported only when it ends).
    ``capture_content`` (off by default, as the GenAI conventions ask) puts redacted text on
    spans: span event content, ``gen_ai.tool.call.result`` and ``gen_ai.output.messages``.
    ``invoke_agent_span`` wraps each A2A call in an ``invoke_agent {agent}`` span.
    ``mirror_spans`` makes the caller's span of a tool call that the callee announced as
    recorded too (a mirror, linked to it), and its thinking and text events of a turn whose
    callee announced its own turn span; off, the callee's spans are their one record.
    ``sigterm_handler`` lets the instrumentation take SIGTERM when nobody else does.
    """

    capture_content: bool = False
    content_max_length: int = DEFAULT_CONTENT_MAX_LENGTH
    max_events_per_span: int = DEFAULT_MAX_EVENTS
    sides: frozenset[str] = _ALL_SIDES
    redactor: Redactor = DEFAULT_REDACTOR
    pending_spans: bool = False
    invoke_agent_span: bool = False
    mirror_spans: bool = False
    sigterm_handler: bool = True

    @classmethod
    def resolve(
        cls, kwargs: Mapping[str, Any], environ: Mapping[str, str] = os.environ
    ) -> BridgeConfig:
        """Settings from instrumentor keyword arguments, else the environment, else defaults.

        Unparseable environment values fall back to the default rather than failing the agent.
        """

        def pick(name: str, env: str, parse: Any, default: Any) -> Any:
            if kwargs.get(name) is not None:
                return kwargs[name]
            raw = environ.get(env)
            parsed = None if raw is None else parse(raw)
            return default if parsed is None else parsed

        max_length = int(
            pick(
                "content_max_length", ENV_CONTENT_MAX_LENGTH, _parse_int, DEFAULT_CONTENT_MAX_LENGTH
            )
        )
        max_events = int(
            pick("max_events_per_span", ENV_MAX_EVENTS, _parse_int, DEFAULT_MAX_EVENTS)
        )
        sides = kwargs.get("sides")
        redactor = kwargs.get("redactor")
        if redactor is None:
            patterns = [p for p in environ.get(ENV_REDACT_PATTERNS, "").split("\n") if p.strip()]
            redactor = _redactor_with(patterns, environ.get(ENV_REDACT_RULES, "").strip())
        genai_capture = environ.get(ENV_GENAI_CAPTURE_CONTENT)
        capture_default = _parse_genai_capture(genai_capture) if genai_capture is not None else None
        return cls(
            capture_content=bool(
                pick(
                    "capture_content",
                    ENV_CAPTURE_CONTENT,
                    _parse_bool,
                    bool(capture_default),
                )
            ),
            content_max_length=max(16, min(max_length, HARD_LIMIT_BYTES)),
            max_events_per_span=max(2, max_events),
            sides=_sides_of(sides, environ),
            redactor=redactor,
            pending_spans=bool(pick("pending_spans", ENV_PENDING_SPANS, _parse_bool, False)),
            invoke_agent_span=bool(
                pick("invoke_agent_span", ENV_INVOKE_AGENT_SPAN, _parse_bool, False)
            ),
            mirror_spans=bool(pick("mirror_spans", ENV_MIRROR_SPANS, _parse_bool, False)),
            sigterm_handler=bool(pick("sigterm_handler", ENV_SIGTERM_HANDLER, _parse_bool, True)),
        )
