"""How the user's reply answers Jarvis's question about a held action ("Shall I
unlock Front Door?"), without the model.

- "yes": an answer that agrees and nothing negates or doubts ("sure, go ahead").
- "no": a refusal or any negation ("don't", "I didn't say yes", "not now, ok?").
- "unclear": doubt, a question about the question ("wait, which one?"), or yes
  and no at once: the question is asked again.
- "other": anything else, such as a new request.

The words come from every language Jarvis speaks (people answer "ok" in any
of them); question words from the user's language and English only, as the
short ones mean other things elsewhere ("que", "was", "qui").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
import re
from typing import Literal

from .lang import LANGUAGES, Language, language_code
from .text import accent_folded, words

type Answer = Literal["yes", "no", "unclear", "other"]
type _Tag = Literal["yes", "no", "negation", "hedge", "question", "polite", "filler"]

# Punctuation that ends a clause: yes and no words count only in a clause of
# their own ("sí, ábrela"), not inside a request ("mach das Licht an").
_CLAUSE_END = re.compile(r"[,.;:!?¿¡…]+")
_IN_REQUEST: Mapping[_Tag, _Tag | None] = {"yes": None, "no": "negation"}


def _phrase(text: str) -> tuple[str, ...]:
    return tuple(words(accent_folded(text)))


def _words(pack: Language) -> Mapping[_Tag, tuple[str, ...]]:
    """A pack's answer words by kind; where kinds share a phrase the later one
    wins."""
    return {
        "filler": pack.fillers,
        "polite": pack.polite,
        "question": pack.questions,
        "yes": pack.yes,
        "no": pack.no,
        "hedge": pack.hedges,
        "negation": pack.negations,
    }


@cache
def _lexicon(code: str) -> tuple[Mapping[tuple[str, ...], _Tag], int]:
    """Every answer phrase for a language, by its folded words, and the most
    words a phrase has."""
    lexicon: dict[tuple[str, ...], _Tag] = {}
    for tag in _words(LANGUAGES[0]):
        for pack in LANGUAGES:
            if tag == "question" and pack.code not in ("en", code):
                continue
            for phrase in _words(pack)[tag]:
                lexicon[_phrase(phrase)] = tag
    return lexicon, max(map(len, lexicon))


def _tags(text: str, language: str | None) -> list[_Tag | None]:
    """The reply's phrases, longest first ("not sure" before "not"), as kinds;
    None for a word of something else."""
    lexicon, longest = _lexicon(language_code(language))
    tags: list[_Tag | None] = []
    for clause in _CLAUSE_END.split(accent_folded(text)):
        spoken = words(clause)
        said: list[_Tag | None] = []
        start = 0
        while start < len(spoken):
            for size in range(min(longest, len(spoken) - start), 0, -1):
                if tag := lexicon.get(tuple(spoken[start : start + size])):
                    said.append(tag)
                    start += size
                    break
            else:
                said.append(None)
                start += 1
        if None in said:
            # Inside a request a yes is part of the request ("mach das Licht
            # an"), and a no negates it ("no lo hagas", "stop the music").
            said = [_IN_REQUEST.get(tag, tag) if tag else None for tag in said]
        tags += said
    return tags


def _outcome(tags: Sequence[_Tag | None], asks: bool) -> Answer:
    if "negation" in tags:
        return "no"
    if "no" in tags:
        return "unclear" if "yes" in tags else "no"
    if "hedge" in tags:
        return "unclear"
    if "yes" in tags:
        # "ok?" doubts; "yes please?" does not.
        return "unclear" if asks and "polite" not in tags else "yes"
    content = tags.count(None)
    if asks:
        # "which door?" asks about the question; "what time is it?" is new.
        return "unclear" if content <= 1 else "other"
    return "other" if content else "unclear"


def _read(text: str, language: str | None) -> tuple[list[_Tag | None], Answer]:
    tags = _tags(text, language)
    asks = "question" in tags or "?" in text or "¿" in text
    return tags, _outcome(tags, asks)


def classify_answer(text: str, language: str | None) -> Answer:
    """How a reply in a language (a tag such as 'de-CH') answers Jarvis's question."""
    return _read(text, language)[1]


def plain_answer(text: str, language: str | None = None) -> bool | None:
    """True for a reply that is only a yes ("Yes, please!", "ja", "sí"), False
    for only a no ("no", "cancel", "nein danke"), None for anything else."""
    tags, answer = _read(text, language)
    if None in tags:
        return None
    return {"yes": True, "no": False}.get(answer)
