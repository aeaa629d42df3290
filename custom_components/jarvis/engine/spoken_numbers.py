"""Numbers said in words, as digits: speech-to-text engines and people
write "fifty percent" or "einundzwanzig Grad", and HA's matcher reads them,
so the checks of a call's numbers against the request must too. The words
are unicode-rbnf's, which hassil, the conversation integration's matcher,
reads numbers with."""

from __future__ import annotations

from functools import cache
import re

from unicode_rbnf import RbnfEngine

from .lang import language_pack
from .text import accent_folded, any_of

# Levels, temperatures and volumes are said up to a hundred. One is left
# out: it is also the article ("un", "ein", "een").
_SAID = range(2, 101)
_ZERO = 0


def in_digits(text: str, language: str | None) -> str:
    """The text with the numbers its language's words say written in digits
    ("fifty percent": "50 percent"), a half as a level ("halfway": "50%")."""
    pattern, values, halves = _number_words(language_pack(language).code)
    text = pattern.sub(lambda found: values[_key(found.group(0))], text)
    return halves.sub("50%", text)


@cache
def _number_words(
    code: str,
) -> tuple[re.Pattern[str], dict[str, str], re.Pattern[str]]:
    """A pattern of the language's number words, longest first, the digits
    of each (keyed by `_key`), and a pattern of its words for a half. A word
    of its "percent" stays a word: the "cent" of "pour cent"."""
    pack = language_pack(code)
    kept = {word for said in pack.percent_words for word in _key(said).split()}
    engine = RbnfEngine.for_language(code)
    values: dict[str, str] = {}
    for number in (_ZERO, *_SAID):
        for said in engine.format_number(number).text_by_ruleset.values():
            if _key(said) not in kept:
                values.update(dict.fromkeys((said, accent_folded(said)), str(number)))
    # "twenty-one", "twenty one", "vingt et un": hyphens and spaces alike.
    forms = sorted(values, key=len, reverse=True)
    alternatives = "|".join(
        r"[\s-]+".join(map(re.escape, form.replace("-", " ").split())) for form in forms
    )
    keyed = {_key(form): digits for form, digits in values.items()}
    halves = any_of(sorted(pack.half_words, key=len, reverse=True))
    return (
        _whole_words(alternatives),
        keyed,
        _whole_words(halves),
    )


def _whole_words(alternatives: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _key(said: str) -> str:
    return " ".join(accent_folded(said).casefold().replace("-", " ").split())
