"""Redaction: a credential in any text an agent sends (thinking, text, errors, tool output, the
text fallback, tool names, abort reasons, exception messages) never reaches a span name, status,
attribute or event, nor a metric attribute, on either side. The agents here switch the producer's
own redaction off, so only the bridge stands between the credential and the telemetry."""

import pytest
from a2a.utils.errors import A2AError
from otel_support import (
    Step,
    Telemetry,
    abort,
    all_telemetry_text,
    call,
    complete,
    env,
    error,
    events,
    output,
    raise_,
    raw,
    serving,
    start,
    text,
    thinking,
)

from a2a_progress.envelope import HARD_LIMIT_BYTES
from a2a_progress.otel import conventions as conv
from a2a_progress.otel.config import ENV_REDACT_PATTERNS
from a2a_progress.redaction import MASK, Redactor

# Fake credentials of the shapes the built-in patterns know: (where it appears, its secret part).
GITHUB = "ghp_" + "Zx9" * 12
AWS = "AKIA" + "QWERTYUIOPASDFGH"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudCJ9.c2lnbmF0dXJlLXNlY3JldA"
PASSWORD = "correct-horse-battery"
BEARER = "tok3n.v4lue-xyz"
PRIVATE_KEY_BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"
CREDENTIALS = {
    GITHUB: GITHUB,
    AWS: AWS,
    JWT: JWT,
    f"password={PASSWORD}": PASSWORD,
    f"Authorization: Bearer {BEARER}": BEARER,
    f"-----BEGIN PRIVATE KEY-----\n{PRIVATE_KEY_BODY}\n-----END PRIVATE KEY-----": (
        PRIVATE_KEY_BODY
    ),
}
SECRETS = list(CREDENTIALS.values())
MARKER = "...truncated"


def leaked(telemetry: Telemetry, secrets: list[str]) -> list[str]:
    """The secrets found in any span text or metric attribute."""
    texts = all_telemetry_text(telemetry)
    for name in (conv.METRIC_TOOL_DURATION, conv.METRIC_ENVELOPES, conv.METRIC_ENVELOPE_KINDS):
        texts += [str(v) for attributes, _ in telemetry.points(name) for v in attributes.values()]
    return [secret for secret in secrets if any(secret in text for text in texts)]


def everywhere(credential: str) -> list[Step]:
    """A turn that puts ``credential`` in every field an envelope or update can carry."""
    return [
        thinking(f"thinking about {credential} now"),
        text(f"progress {credential}"),
        error(f"it failed with {credential}"),
        start("shell", "c1"),
        output("c1", f"$ env\n{credential}\n"),
        abort("c1", f"killed: {credential}"),
        raw(None, f"plain update {credential}"),
        raw("{not json", f"bad envelope, fallback {credential}"),
        env("tool_call", 100, stream_key="k", tool=f"deploy {credential}"),
        env("tool_call", 101, "aborted", stream_key="k", tool="x", reason=f"reason {credential}"),
        complete(),
    ]


@pytest.mark.parametrize("credential", list(CREDENTIALS), ids=list(range(len(CREDENTIALS))))
async def test_no_credential_reaches_telemetry(telemetry: Telemetry, credential: str) -> None:
    async with serving(everywhere(credential), redactor=None, enable_output=True) as served:
        await call(served.card_for("jsonrpc"))
    assert leaked(telemetry, [CREDENTIALS[credential]]) == []
    for observer in (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE):
        # The content is still there, masked: telemetry stays useful.
        turn_contents = [e[conv.CONTENT] for e in events(telemetry.turn_span(observer))]
        assert len(turn_contents) == 5
        assert all(MASK in content for content in turn_contents)
        shell, deploy = telemetry.tool_spans(observer)
        assert MASK in events(shell)[0][conv.CONTENT]
        assert MASK in (shell.status.description or "")
        assert MASK in deploy.name
        assert MASK in (deploy.status.description or "")
    redacted = telemetry.counts(conv.METRIC_ENVELOPES, conv.OUTCOME, conv.OBSERVER_CALLER)
    assert redacted["redacted"] >= 5


async def test_an_exception_message_is_redacted(telemetry: Telemetry) -> None:
    message = "\n".join(CREDENTIALS)
    async with serving([start("s", "s1"), raise_(RuntimeError(message))]) as served:
        for transport in ("jsonrpc", "grpc"):
            with pytest.raises(A2AError):
                await call(served.card_for(transport))
    assert leaked(telemetry, SECRETS) == []
    [callee_exception] = [
        e for span in telemetry.turn_spans(conv.OBSERVER_CALLEE) for e in events(span, "exception")
    ][:1]
    assert MASK in callee_exception["exception.message"]


@pytest.mark.parametrize(
    ("max_length", "cut_at"),
    # Where a bridge may cut before redacting: just past the bound, or at the 64 KiB ceiling.
    [(1024, 1024 + 1024), (10**6, HARD_LIMIT_BYTES + 1024), (10**6, HARD_LIMIT_BYTES)],
    ids=["past-small-bound", "past-ceiling", "at-ceiling"],
)
async def test_a_credential_cut_before_redaction_does_not_leak(
    telemetry: Telemetry, max_length: int, cut_at: int
) -> None:
    """A long text may be cut before it is redacted, and the cut can split a credential so that
    its pattern no longer matches. Masks shrink text: the piece must not slip under the bound."""
    telemetry.instrument(content_max_length=max_length)
    key = "-----BEGIN PRIVATE KEY-----\n" + "QUFB" * (cut_at // 5) + "\n-----END PRIVATE KEY-----\n"
    token = "ghp_" + "T0k" * 20
    # The token starts 30 bytes before the cut (less the marker): 26 of its 60 secret characters
    # are before it, too few for its pattern.
    filler = "f" * (cut_at - len(MARKER) - 30 - len(key) - 1)
    update = key + filler + " " + token + " and more text after it" * 200
    async with serving([raw(None, update), complete()], redactor=None) as served:
        await call(served.card_for("rest"))
    assert leaked(telemetry, [token[4:30]]) == []
    for observer in (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE):
        [event] = events(telemetry.turn_span(observer))
        assert event[conv.CONTENT].startswith(MASK + "\n" + "f" * 100)
        assert event[conv.CONTENT].endswith(MARKER)
        assert event[conv.CONTENT_TRUNCATED] is True


@pytest.mark.parametrize("how", ["argument", "environment"])
async def test_extra_patterns(
    telemetry: Telemetry, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    if how == "argument":
        telemetry.instrument(redactor=Redactor([r"internal-\d+"]))
    else:
        monkeypatch.setenv(ENV_REDACT_PATTERNS, "internal-\\d+\nproject-[a-z]+")
        telemetry.instrument()
    steps = [thinking(f"ticket internal-4242 and {GITHUB}"), complete()]
    async with serving(steps, redactor=None) as served:
        await call(served.card_for("grpc"))
    assert leaked(telemetry, ["internal-4242", GITHUB]) == []
    for observer in (conv.OBSERVER_CALLER, conv.OBSERVER_CALLEE):
        [event] = events(telemetry.turn_span(observer))
        assert event[conv.CONTENT] == f"ticket {MASK} and {MASK}"
