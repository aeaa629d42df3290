"""Commands that name no device: "turn it off", "Ahora apágala", "set it to
50". They refer to what was just said or done; with nothing before them,
only the user can say which device they mean.

A request counts only when every word is one the language lists for such
commands (`Language.referring`), an on/off word of its tool topics, a small
word (article, filler, polite word), a number or a percent: one word more
("the lamp", "everything", "in 5 minutes") may name something, and the
request is left to the rest of the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
import re
from typing import Literal

from .lang import LANGUAGES, Language, language_code
from .text import accent_folded

type Action = Literal["turnon", "turnoff", "level"]

_ON_OFF: tuple[Action, ...] = ("turnon", "turnoff")
# Numbers, the percent and degree signs, and words ("23 °C" is "23", "°c").
_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)?|%|°[cf]?|\w+")
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)?")
_SIGNS = frozenset({"%", "°", "°c", "°f"})


@dataclass(frozen=True, slots=True)
class Referring:
    """What a command that names no device asks: on, off, or a level."""

    action: Action
    level: float | None = None
    # The level was said in percent: not a temperature.
    percent: bool = False


@dataclass(frozen=True, slots=True)
class _Words:
    """One language's words for such commands, accent-folded."""

    referring: frozenset[str]
    small: frozenset[str]
    percent: frozenset[str]
    # Per action: its words.
    actions: dict[Action, frozenset[str]]
    clitics: tuple[str, ...]


def _folded(phrases: tuple[str, ...]) -> frozenset[str]:
    return frozenset(
        word for item in phrases for word in _TOKEN_RE.findall(accent_folded(item))
    )


def _words(pack: Language) -> _Words:
    return _Words(
        _folded(pack.referring),
        _folded(
            (
                *pack.stopwords,
                *pack.fillers,
                *pack.polite,
                *pack.articles,
                *pack.joiners,
            )
        ),
        _folded(pack.percent_words),
        {action: _folded(pack.tool_topics[action]) for action in _ON_OFF},
        tuple(accent_folded(clitic) for clitic in pack.clitics),
    )


_BY_CODE = {pack.code: _words(pack) for pack in LANGUAGES}


def referring_command(request: str, language: str | None) -> Referring | None:
    """What the request asks of the devices it refers to, if it names none
    and says at least one word for them or a verb that names no action; read
    in its language and in English."""
    packs = _packs(language)
    numbers: list[float] = []
    actions: set[Action] = set()
    percent = referring = False
    for token in _TOKEN_RE.findall(accent_folded(request)):
        if _NUMBER_RE.fullmatch(token):
            numbers.append(float(token.replace(",", ".")))
            continue
        if token in _SIGNS:
            percent = percent or token == "%"
            continue
        if not (said := _said(token, packs)):
            return None
        actions.update(action for action in _ON_OFF if action in said)
        referring = referring or "referring" in said
        percent = percent or "percent" in said
    if not referring or len(numbers) > 1:
        return None
    if numbers:
        return Referring("level", numbers[0], percent)
    if len(actions) == 1:
        return Referring(actions.pop())
    return None


def elided_target(request: str, language: str | None) -> str | None:
    """The words of a request that says only what to act on, leaving the
    action to the last turn ("and the kitchen too", "y el dormitorio"); None
    where it says an action, a number, or nothing beside small words."""
    left: list[str] = []
    for word in _TOKEN_RE.findall(request):
        token = accent_folded(word)
        said = _said(token, _packs(language))
        if _NUMBER_RE.fullmatch(token) or token in _SIGNS or said & set(_ON_OFF):
            return None
        if not said:
            left.append(word)
    return " ".join(left) or None


def _packs(language: str | None) -> list[_Words]:
    """The words of the language and of English."""
    return [
        _BY_CODE[code]
        for code in dict.fromkeys([language_code(language), "en"])
        if code in _BY_CODE
    ]


def _said(token: str, packs: list[_Words]) -> set[str]:
    """What a word of the request is: an action, "referring", "percent" or
    "small"; nothing for a word of none of these."""
    for words in packs:
        said: set[str] = {
            action for action, members in words.actions.items() if token in members
        }
        if said:
            return said
        if token in words.referring:
            return {"referring"}
        if token in words.percent:
            return {"percent"}
        if token in words.small:
            return {"small"}
        # A verb with its pronoun written on: "apágala", "ponlo".
        for clitic in words.clitics:
            stem = token.removesuffix(clitic)
            if stem == token:
                continue
            if stem in words.referring:
                return {"referring"}
            said = {
                action for action, members in words.actions.items() if stem in members
            }
            if said:
                return said | {"referring"}
    return set()
