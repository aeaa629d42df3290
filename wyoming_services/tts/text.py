"""Cutting text (possibly still arriving from an LLM) into pieces to synthesize."""

from __future__ import annotations

from dataclasses import dataclass
import re
from typing import Final

_CLOSERS: Final = "'\")]\u2019\u201d»"
_OPENERS: Final = "'\"([\u2018\u201c«"
# A sentence may end at . ! ? … (plus closing quotes/brackets) before whitespace;
# it does if the next word starts with a capital or digit. A blank line always ends one.
_SENTENCE_PUNCTUATION: Final = ".!?…"
# A clause ends at , ; : (plus closers) before whitespace, or at a spaced dash.
_CLAUSE_PUNCTUATION: Final = ",;:"
_DASHES: Final = "-–—"
# A long first clause can also end before a conjunction ("The lights are on | and").
_CONJUNCTIONS: Final = frozenset({"and", "but", "because", "while", "which", "then"})
_LONGEST_CONJUNCTION: Final = max(map(len, _CONJUNCTIONS))
_MIN_WORDS_BEFORE_CONJUNCTION: Final = 5
# "Dr." or "e.g." is not the end of a sentence. A match is at most 4 characters, so
# the last 6 tell it, including the word boundary before it.
_ABBREVIATION: Final = re.compile(r"(?:\b([^\W\d_]{1,3})|\be\.g|\bi\.e|\betc|\bvs)\.$")
_ABBREVIATION_WINDOW: Final = 6
_MARKUP: Final = re.compile(r"[*_#`]+")
# Longer text without a sentence end is cut at its last space (or anywhere, if it
# has none): one synthesis of 20,000 characters would hold a worker for minutes.
MAX_PIECE_CHARS: Final = 400
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


def _is_abbreviation(tail: str) -> bool:
    match = _ABBREVIATION.search(tail)
    return match is not None and (match.group(1) is None or match.group(1)[0].isupper())


@dataclass(slots=True)
class _Cut:
    """Where a piece ends: `tokens` started before it, `spoken` if it has a word."""

    end: int
    tokens: int
    spoken: bool
    comma: bool = False


@dataclass(slots=True)
class _SentenceEnd:
    """A sentence end that the next word decides (lowercase or abbreviation: no)."""

    cut: _Cut
    abbreviation: bool
    in_openers: bool = False
    blank_line: _Cut | None = None


class TextChunker:
    """Splits text into sentences as it arrives.

    The first piece is the first clause ("Sure," / "The lights are on, and"), so the
    first audio is ready after synthesizing a few words rather than a whole
    sentence; the rest goes sentence by sentence, which keeps natural intonation.

    Every character is looked at once, when it arrives, with a few flags of state:
    a client streaming text one character at a time costs linear time, whatever
    the text (runs of dots made the regular expressions this replaced quadratic).
    """

    def __init__(self) -> None:
        # Text from the current piece's start on, joined only when a piece is cut.
        self._parts: list[str] = []
        self._start = 0
        self._pos = 0
        self._first = True
        self._cuts: list[_Cut] = []
        self._pending: _SentenceEnd | None = None
        # Inside "[.!?…]+[closers]*", "[,;:][closers]*" or "\s[-–—]+".
        self._in_sentence_end = False
        self._in_clause_end = False
        self._in_dash = False
        self._after_space = False
        self._newline_in_space = False
        # Whitespace-separated tokens: how many started, the current one's start.
        self._tokens = 0
        self._piece_tokens = 0
        self._in_token = False
        self._token = ""
        self._after_word_char = False
        self._after_alnum = False
        self._last_alnum = -1
        self._word_end: _Cut | None = None
        self._recent = ""
        self._last_space: _Cut | None = None

    def add(self, text: str) -> list[str]:
        """Pieces completed by this text."""
        self._parts.append(text)
        for char in text:
            self._scan(char)
            self._pos += 1
        if not self._cuts:
            return []
        joined = "".join(self._parts)
        base = self._pos - len(joined)
        pieces = []
        start = base
        for cut in self._cuts:
            comma = "," if cut.comma else ""
            if piece := clean(joined[start - base : cut.end - base] + comma):
                pieces.append(piece)
            start = cut.end
        self._cuts = []
        self._parts = [joined[start - base :]]
        return pieces

    def finish(self) -> list[str]:
        """The text that is left at the end of the stream."""
        piece = clean("".join(self._parts))
        self._parts = []
        return [piece] if piece else []

    def _cut(self, end: int, tokens: int, spoken: bool, comma: bool = False) -> None:
        self._cuts.append(_Cut(end, tokens, spoken, comma))
        self._start = end
        self._piece_tokens = tokens
        if spoken:
            self._first = False

    def _cut_here(self, end: int) -> _Cut:
        return _Cut(end, self._tokens, self._last_alnum >= self._start)

    def _decide(self, pending: _SentenceEnd, char: str) -> None:
        """The first character after a sentence end's spaces (and openers)."""
        self._pending = None
        if not ((char.isalpha() and char.islower()) or pending.abbreviation):
            cut = pending.cut
        elif pending.blank_line is not None:
            cut = pending.blank_line
        else:
            return
        self._cut(cut.end, cut.tokens, cut.spoken)

    def _scan(self, char: str) -> None:
        pos = self._pos
        pending = self._pending
        if pending is not None:
            # Like "following.lstrip().lstrip(openers)": spaces, then openers.
            if pending.in_openers:
                if char not in _OPENERS:
                    self._decide(pending, char)
            elif char in _OPENERS:
                pending.in_openers = True
            elif not char.isspace():
                self._decide(pending, char)
        space = char.isspace()
        if space:
            self._last_space = self._cut_here(pos)
            self._end_of_token(pos)
            if self._in_sentence_end:
                self._pending = _SentenceEnd(
                    self._cut_here(pos),
                    _is_abbreviation(self._recent),
                )
            elif self._first and (self._in_clause_end or self._in_dash):
                self._cut(pos, self._tokens, self._last_alnum >= self._start)
            if char == "\n":
                if self._newline_in_space:
                    if self._pending is not None:
                        self._pending.blank_line = self._cut_here(pos + 1)
                    else:
                        self._cut(
                            pos + 1, self._tokens, self._last_alnum >= self._start
                        )
                self._newline_in_space = True
        else:
            self._newline_in_space = False
            if not self._in_token:
                self._in_token = True
                self._tokens += 1
                self._token = ""
            if len(self._token) <= _LONGEST_CONJUNCTION:
                self._token += char.lower()
            if char.isalnum():
                self._last_alnum = pos
        self._in_sentence_end = char in _SENTENCE_PUNCTUATION or (
            self._in_sentence_end and char in _CLOSERS
        )
        self._in_clause_end = char in _CLAUSE_PUNCTUATION or (
            self._in_clause_end and char in _CLOSERS
        )
        self._in_dash = char in _DASHES and (self._in_dash or self._after_space)
        self._after_space = space
        self._after_word_char = char.isalnum() or char == "_"
        self._after_alnum = char.isalnum()
        self._recent = (self._recent + char)[-_ABBREVIATION_WINDOW:]
        if pos + 1 - self._start >= MAX_PIECE_CHARS:
            self._pending = None
            space_cut = self._last_space
            cut = (
                space_cut
                if space_cut is not None and space_cut.end > self._start
                else self._cut_here(pos + 1)
            )
            self._cut(cut.end, cut.tokens, cut.spoken)

    def _end_of_token(self, pos: int) -> None:
        """Whitespace after a token: maybe cut before it, if it is a conjunction."""
        if not self._in_token:
            return
        self._in_token = False
        before = self._word_end
        if (
            self._first
            and before is not None
            and self._token in _CONJUNCTIONS
            and before.tokens - self._piece_tokens >= _MIN_WORDS_BEFORE_CONJUNCTION
        ):
            self._cut(before.end, before.tokens, before.spoken, before.comma)
        self._word_end = (
            _Cut(pos, self._tokens, self._last_alnum >= self._start, self._after_alnum)
            if self._after_word_char
            else None
        )
