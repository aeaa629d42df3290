"""Cutting text (possibly still arriving from an LLM) into pieces to synthesize."""

from __future__ import annotations

import re
from typing import Final

_CLOSERS: Final = "'\")]\u2019\u201d»"
_OPENERS: Final = "'\"([\u2018\u201c«"
# A sentence may end at . ! ? … (plus closing quotes/brackets) before whitespace;
# it does if the next word starts with a capital or digit. A blank line always ends one.
_SENTENCE_END: Final = re.compile(rf"[.!?…]+[{re.escape(_CLOSERS)}]*(?=\s)|\n\s*\n")
# A clause ends at , ; : or a spaced dash.
_CLAUSE_END: Final = re.compile(rf"[,;:][{re.escape(_CLOSERS)}]*(?=\s)|\s[-–—]+(?=\s)")
# A long first clause can also end before a conjunction ("The lights are on | and").
_CONJUNCTION: Final = re.compile(
    r"(?<=\w)(?=\s+(?:and|but|because|while|which|then)\s)", re.IGNORECASE
)
_MIN_WORDS_BEFORE_CONJUNCTION: Final = 5
# "Dr." or "e.g." is not the end of a sentence.
_ABBREVIATION: Final = re.compile(r"(?:\b([^\W\d_]{1,3})|\be\.g|\bi\.e|\betc|\bvs)\.$")
_MARKUP: Final = re.compile(r"[*_#`]+")
_DASHES: Final = "-–—"
_FINAL_PUNCTUATION: Final = ".!?…,;:。！？"


def clean(text: str) -> str:
    """Text as it should be spoken: no markdown, one line, final punctuation."""
    text = " ".join(_MARKUP.sub("", text).split())
    if not any(ch.isalnum() for ch in text):
        return ""
    if text[-1] in _DASHES:  # a clause cut at a dash: say it as a comma
        text = text.rstrip(_DASHES + " ") + ","
    if not text.rstrip(_CLOSERS).endswith(tuple(_FINAL_PUNCTUATION)):
        text += "."
    return text


class TextChunker:
    """Splits text into sentences as it arrives.

    The first piece is the first clause ("Sure," / "The lights are on, and"), so the
    first audio is ready after synthesizing a few words rather than a whole
    sentence; the rest goes sentence by sentence, which keeps natural intonation.
    """

    def __init__(self) -> None:
        self._buffer = ""
        self._first = True

    def add(self, text: str) -> list[str]:
        """Pieces completed by this text."""
        self._buffer += text
        pieces: list[str] = []
        start = search_from = 0
        while (cut := self._boundary(start, search_from)) is not None:
            end, is_boundary = cut
            if is_boundary:
                # A piece cut before a conjunction is said as a clause: add a comma.
                comma = "," if self._buffer[end - 1].isalnum() else ""
                if piece := clean(self._buffer[start:end] + comma):
                    pieces.append(piece)
                    self._first = False
                start = end
            search_from = end
        self._buffer = self._buffer[start:]
        return pieces

    def finish(self) -> list[str]:
        """The text that is left at the end of the stream."""
        piece = clean(self._buffer)
        self._buffer = ""
        return [piece] if piece else []

    def _boundary(self, start: int, pos: int) -> tuple[int, bool] | None:
        """(end, is it a boundary) of the next candidate; None to wait for text."""
        candidates = [m for m in (_SENTENCE_END.search(self._buffer, pos),) if m]
        if self._first:
            candidates += [m for m in (_CLAUSE_END.search(self._buffer, pos),) if m]
            candidates += [
                m
                for m in _CONJUNCTION.finditer(self._buffer, pos)
                if len(self._buffer[start : m.end()].split())
                >= _MIN_WORDS_BEFORE_CONJUNCTION
            ][:1]
        if not candidates:
            return None
        match = min(candidates, key=lambda m: m.end())
        if match.re is not _SENTENCE_END or match.group().startswith("\n"):
            return match.end(), True
        following = self._buffer[match.end() :].lstrip().lstrip(_OPENERS)
        if not following:
            return None  # the next word decides
        abbreviation = _ABBREVIATION.search(self._buffer, start, match.end())
        if (following[0].isalpha() and following[0].islower()) or (
            abbreviation
            and (abbreviation.group(1) is None or abbreviation.group(1)[0].isupper())
        ):
            return match.end(), False
        return match.end(), True
