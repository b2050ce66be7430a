"""A turn's reply: its artifacts as streamed (chunks appended in place) and the reply text."""

from __future__ import annotations

from collections.abc import Callable

from a2a_progress.sdk.views import ArtifactView, MessageView, PartView, message_text


class ReplyAssembly:
    """The artifacts of one turn, by id: appends build new views, never touch the events."""

    __slots__ = ("_artifacts",)

    def __init__(self) -> None:
        self._artifacts: dict[str, ArtifactView] = {}

    @property
    def artifacts(self) -> tuple[ArtifactView, ...]:
        """The artifacts so far, in the order they were first seen."""
        return tuple(self._artifacts.values())

    def put(self, artifact: ArtifactView) -> None:
        """Set (or replace) an artifact."""
        self._artifacts[artifact.artifact_id] = artifact

    def add(self, artifact: ArtifactView, *, append: bool) -> None:
        """Apply an artifact update: ``append`` extends the artifact of the same id, if known."""
        known = self._artifacts.get(artifact.artifact_id)
        if not append or known is None:
            self.put(artifact)
            return
        parts = list(known.parts)
        more = list(artifact.parts)
        # A streamed chunk continues the text before it ("Hel" + "lo"), it is no new line.
        head, last = (more[0].text, parts[-1].text) if more and parts else (None, None)
        if head is not None and last is not None:
            parts[-1] = parts[-1]._replace(text=last + head)
            del more[0]
        self._artifacts[artifact.artifact_id] = known._replace(parts=tuple(parts + more))

    def reply(
        self, message: MessageView | None, *, progress: Callable[[PartView], bool] | None = None
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
            if part.text is not None and (progress is None or not progress(part))
        )
