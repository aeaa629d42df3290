"""What of a model's output may reach the user, and when."""

from __future__ import annotations

from collections.abc import Callable
import re

from .textproto import (
    CALL_MARKERS,
    MAX_LOOP_UNIT,
    MIN_LOOP_CHARS,
    looks_like_call_syntax,
)

_THINK_OPEN = "<think>"
_THINK_CLOSE = "</think>"
_SENTENCE_END_RE = re.compile(r"[.!?…。](?:\s|$)|\n")


def sentences(text: str) -> list[str]:
    """The text cut after each sentence end, each piece with the spaces after it."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        end = match.end()
        while end < len(text) and text[end].isspace():
            end += 1
        if end > start:
            pieces.append(text[start:end])
            start = end
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def _partial_tag_len(text: str, tag: str) -> int:
    """Length of the longest suffix of text that is a prefix of tag."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0


class ThinkFilter:
    """Removes <think>…</think> blocks from a stream, across chunk boundaries."""

    def __init__(self) -> None:
        self._buffer = ""
        self._inside = False

    def feed(self, chunk: str) -> str:
        """Add a chunk; return the text that is certainly outside think blocks."""
        self._buffer += chunk
        out: list[str] = []
        while True:
            if self._inside:
                end = self._buffer.find(_THINK_CLOSE)
                if end == -1:
                    keep = _partial_tag_len(self._buffer, _THINK_CLOSE)
                    self._buffer = self._buffer[len(self._buffer) - keep :]
                    break
                self._buffer = self._buffer[end + len(_THINK_CLOSE) :]
                self._inside = False
                continue
            start = self._buffer.find(_THINK_OPEN)
            if start == -1:
                keep = _partial_tag_len(self._buffer, _THINK_OPEN)
                out.append(self._buffer[: len(self._buffer) - keep])
                self._buffer = self._buffer[len(self._buffer) - keep :]
                break
            out.append(self._buffer[:start])
            self._buffer = self._buffer[start + len(_THINK_OPEN) :]
            self._inside = True
        return "".join(out)

    def flush(self) -> str:
        """End of stream: return what is left outside any think block."""
        rest = "" if self._inside else self._buffer
        self._buffer = ""
        return rest


def strip_think(text: str) -> str:
    """Remove think blocks from a complete text, including an unopened leading one."""
    if _THINK_CLOSE in text and _THINK_OPEN not in text.split(_THINK_CLOSE, 1)[0]:
        text = text.split(_THINK_CLOSE, 1)[1]
    think = ThinkFilter()
    return (think.feed(text) + think.flush()).strip()


_LONGEST_MARKER = max(map(len, CALL_MARKERS))


def _ends_lead_in(text: str, end: int) -> bool:
    """Whether the text before a sentence end ends with ":" (spaces aside)."""
    while end > 0 and text[end - 1].isspace():
        end -= 1
    return end > 0 and text[end - 1] == ":"


class ReleaseGate:
    """Decides how much of a streaming reply can be shown before it is complete.

    Text is released a sentence at a time, as soon as nothing in it could be a
    tool call written as text: on the text protocol too, so that a spoken
    reply starts while the model still writes it. A reply that starts like a
    call, or comes to contain call syntax, is held from there on.
    """

    def __init__(self, veto: Callable[[str], bool] | None = None) -> None:
        self._blocked = False
        # A sentence the veto rejects is held, and so is all that follows.
        self._veto = veto
        self._pending = ""
        # Where in `_pending` the next feed starts looking: each character is
        # looked at about once, however long a reply runs without a sentence end.
        self._scanned = 0
        self.released = ""

    def feed(self, text: str) -> str:
        """Add visible text; return the part that is safe to show now."""
        self._pending += text
        if self._blocked:
            return ""
        if not self.released and self._pending.lstrip()[:1] in ("{", "[", "<", "`"):
            self._blocked = True
            return ""
        # A marker may straddle the previous feed's end; a sentence end's
        # "." may wait for the space after it.
        new = max(0, self._scanned - _LONGEST_MARKER)
        self._scanned = len(self._pending)
        if looks_like_call_syntax(self._pending[new:]):
            self._blocked = True
            return ""
        boundary = 0
        for match in _SENTENCE_END_RE.finditer(self._pending, new):
            # A lead-in ("To do that, use:") may introduce a call: keep it
            # until what follows shows it does not.
            if not _ends_lead_in(self._pending, match.end()):
                boundary = match.end()
        if not boundary:
            return ""
        ready = self._pending[:boundary]
        if self._veto is not None and self._veto(ready):
            self._blocked = True
            return ""
        self._pending = self._pending[boundary:]
        self._scanned -= boundary
        self.released += ready
        return ready

    @property
    def held(self) -> str:
        """Text not shown yet."""
        return self._pending


# A unit of a few characters said six times or more at the end of a reply.
_REPEATING_RE = re.compile(rf"(.{{2,{MAX_LOOP_UNIT}}}?)\1{{5,}}$", re.DOTALL)
_LOOKED_AT_CHARS = 7 * MAX_LOOP_UNIT


class RepetitionGuard:
    """Notices a reply stuck saying the same thing over and over.

    Small models sometimes do until `max_tokens` ("curtain_light",
    "curtain_light", ... in a call's arguments): a minute on a CPU for a reply
    that cannot be used.
    """

    def __init__(self) -> None:
        self._tail = ""

    def feed(self, text: str) -> bool:
        """Add text; whether the reply now ends in a long repetition."""
        self._tail = (self._tail + text)[-_LOOKED_AT_CHARS:]
        found = _REPEATING_RE.search(self._tail)
        return found is not None and len(found.group(0)) >= MIN_LOOP_CHARS
