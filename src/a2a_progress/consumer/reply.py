"""A turn's reply: its artifacts as streamed (chunks appended in place) and the reply text."""

from __future__ import annotations

from collections.abc import Callable

from a2a.types.a2a_pb2 import Artifact, Message, Part

from a2a_progress.carrier import message_text


class ReplyAssembly:
    """The artifacts of one turn, by id, kept as copies: appends never touch the caller's events."""

    __slots__ = ("_artifacts",)

    def __init__(self) -> None:
        self._artifacts: dict[str, Artifact] = {}

    @property
    def artifacts(self) -> tuple[Artifact, ...]:
        """The artifacts so far, in the order they were first seen."""
        return tuple(self._artifacts.values())

    def put(self, artifact: Artifact) -> None:
        """Set (or replace) an artifact with a copy of ``artifact``."""
        copy = Artifact()
        copy.CopyFrom(artifact)
        self._artifacts[artifact.artifact_id] = copy

    def add(self, artifact: Artifact, *, append: bool) -> None:
        """Apply an artifact update: ``append`` extends the artifact of the same id, if known."""
        known = self._artifacts.get(artifact.artifact_id)
        if not append or known is None:
            self.put(artifact)
            return
        parts = list(artifact.parts)
        # A streamed chunk continues the text before it ("Hel" + "lo"), it is no new line.
        if parts and known.parts and parts[0].HasField("text") and known.parts[-1].HasField("text"):
            known.parts[-1].text += parts.pop(0).text
        known.parts.extend(parts)

    def reply(
        self, message: Message | None, *, progress: Callable[[Part], bool] | None = None
    ) -> str:
        """The reply: the final message's text, else the text of the artifacts.

        ``progress`` picks the artifact parts a dialect read as progress (an ADK thought): they
        were shown as thinking and are not the answer.
        """
        reply = message_text(message) if message is not None else ""
        if reply:
            return reply
        return "\n".join(
            part.text
            for artifact in self._artifacts.values()
            for part in artifact.parts
            if part.HasField("text") and (progress is None or not progress(part))
        )
