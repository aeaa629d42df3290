"""Every language Jarvis speaks, one module each; a new one is a module of
`Language` plus its line in `LANGUAGES`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
import functools
import re

from ..text import (
    accent_folded,
    all_said,
    any_of,
    mentions,
    singular,
    telling_words,
    words,
)
from . import de, en, es, fr, it, nl, pt
from .base import Language

__all__ = [
    "LANGUAGES",
    "Language",
    "bare_verbs",
    "colour_said",
    "every",
    "item_without_list",
    "item_without_verb",
    "language_code",
    "language_pack",
    "leaves_out",
    "measured",
    "names_no_item",
    "says_a_way",
    "says_all",
    "says_everything",
    "step_sign",
    "verb_domains",
    "way_said",
]

# English first: it is the fallback.
LANGUAGES: tuple[Language, ...] = (
    en.LANGUAGE,
    de.LANGUAGE,
    es.LANGUAGE,
    fr.LANGUAGE,
    it.LANGUAGE,
    nl.LANGUAGE,
    pt.LANGUAGE,
)
_BY_CODE = {pack.code: pack for pack in LANGUAGES}


def language_code(language: str | None) -> str:
    """The language of a tag such as 'de-CH' or 'pt_BR': 'de', 'pt'."""
    return (language or "en").split("-", 1)[0].split("_", 1)[0].lower()


def language_pack(language: str | None) -> Language:
    """The words of a language tag's language, English for one Jarvis does not speak."""
    return _BY_CODE.get(language_code(language), en.LANGUAGE)


def verb_domains(text: str, language: str | None) -> set[str]:
    """The entity domains the verbs of a request name, in its language and in
    English ("open the garage door opener": cover, valve)."""
    return {
        domain
        for pack in (language_pack(language), en.LANGUAGE)
        for domain, verbs in pack.verb_domains.items()
        if mentions(text, verbs)
    }


def measured(text: str, language: str | None) -> set[str]:
    """The sensor device classes a question asks to be measured, in its
    language and in English ("wie warm ist es": temperature); a word counts
    at the start of a compound too ("Batteriestand")."""
    said = [singular(word) for word in words(text)]
    return {
        device_class
        for pack in (language_pack(language), en.LANGUAGE)
        for device_class, measures in pack.measure_words.items()
        if any(
            all_said({singular(m) for m in words(measure)}, said)
            for measure in measures
        )
    }


def leaves_out(text: str, language: str | None) -> bool:
    """Whether a request leaves devices out ("all lights except the lamp"),
    in its language or in English."""
    return _says(text, language, lambda pack: pack.exceptions)


def says_everything(text: str, language: str | None) -> bool:
    """Whether a request is about every device of a place ("turn everything
    off in the office"), in its language or in English."""
    return _says(text, language, lambda pack: pack.everything)


def says_all(text: str, language: str | None) -> bool:
    """Whether a request is about every device of a kind ("close all the
    windows"), in its language or in English."""
    return _says(text, language, lambda pack: pack.all_of)


# The ways a level steps (`Language.ways`), in pairs.
STEP_WAYS = (("up", "down"), ("brighter", "dimmer"), ("warmer", "cooler"))


def says_a_step(text: str, language: str | None) -> bool:
    """Whether a request says a level stepped ("louder", "heller")."""
    return any(way_said(text, language, ways) for ways in STEP_WAYS)


def way_said(text: str, language: str | None, ways: tuple[str, str]) -> str | None:
    """The one of two ways ("lock" or "unlock", "open" or "close") a request
    says, in its language or in English; None where it says neither or
    both."""
    said: set[str] = set()
    own = language_pack(language)
    for pack in (own, en.LANGUAGE):
        bared = _ways_bared(text, pack)
        for way in ways:
            phrases = _english_ways(own.code, way) if pack is not own else own.ways[way]
            if mentions(bared, phrases) or any(
                _said_apart(bared, phrase, pack) for phrase in phrases
            ):
                said.add(way)
    return said.pop() if len(said) == 1 else None


@functools.cache
def _english_ways(code: str, way: str) -> tuple[str, ...]:
    """English's words for a way, said in another language: but for those
    that are a common word of it (French "on", the pronoun of "on éteint
    la lumière", is no "on")."""
    pack = language_pack(code)
    common = {
        word
        for phrase in (*pack.fillers, *pack.articles, *pack.stopwords)
        for word in words(phrase)
    }
    return tuple(
        phrase for phrase in en.LANGUAGE.ways[way] if not set(words(phrase)) <= common
    )


def _ways_bared(text: str, pack: Language) -> str:
    """The text with the pack's way verbs bare: "ciérrala" says "cierra"."""
    return " ".join(bare_verbs(words(text), _way_verbs(pack.code)))


@functools.cache
def _way_verbs(code: str) -> Mapping[str, str]:
    return folded_verbs(
        phrase for phrases in language_pack(code).ways.values() for phrase in phrases
    )


def says_a_way(text: str, language: str | None) -> bool:
    """Whether a text says how it turns something (any of `Language.ways`):
    a command of its own, not "… and the TV"."""
    return any(
        way_said(text, language, (way, way)) for way in language_pack(language).ways
    )


def step_sign(text: str, language: str | None, ways: tuple[str, str]) -> int | None:
    """Which way a level steps: 1 where the request says the first of two
    ways ("brighter", "warmer") or "up", -1 the second or "down"; None
    where it says neither or both."""
    way = way_said(text, language, ways) or way_said(text, language, ("up", "down"))
    if way is None:
        return None
    return 1 if way in (ways[0], "up") else -1


def _said_apart(text: str, phrase: str, pack: Language) -> bool:
    """A phrase of a verb and its tail said around other words, the tail
    ending a clause (polite words aside): German "schließ die Haustür auf"
    says "schließ auf", Spanish "cierra la puerta con llave" "cierra con
    llave"."""
    verb, *tail = words(phrase)
    if not tail:
        return False
    polite = {word for polite in pack.polite for word in words(polite)}
    joined = rf"[,;.!?]|\b(?:{any_of(pack.joiners)})\b"
    for clause in re.split(joined, text, flags=re.IGNORECASE):
        said = words(clause)
        while said and said[-1] in polite:
            said.pop()
        if said[-len(tail) :] == tail and verb in said[: -len(tail)]:
            return True
    return False


def colour_said(text: str, language: str | None) -> str | None:
    """The one colour a text says, in its language or in English, by the
    name HA's colours know ("rojo": "red"); None where it says none or
    several."""
    said = {
        colour
        for pack in (language_pack(language), en.LANGUAGE)
        for colour, names in pack.colours.items()
        if mentions(text, names)
    }
    return said.pop() if len(said) == 1 else None


def _says(
    text: str, language: str | None, field: Callable[[Language], Iterable[str]]
) -> bool:
    return any(
        mentions(text, field(pack)) for pack in (language_pack(language), en.LANGUAGE)
    )


def _list_verbs(language: str | None) -> set[str]:
    """The verbs that ask for an item to be put on a list, in the language
    and in English."""
    return {
        verb
        for pack in (language_pack(language), en.LANGUAGE)
        for verb in (*pack.verb_domains.get("todo", ()), *pack.list_verbs)
    }


def item_without_verb(item: str, request: str, language: str | None) -> str:
    """A to-do item without the request's verb that the model copied into it
    ("Apunta llamar a la abuela" for "apunta llamar a la abuela en mis
    tareas"): that verb asks for the item to be put on a list. A verb from
    later in the request too, where the item was never said with it ("Put
    batteries", for "remind me: batteries, put it on the shopping list")."""
    first, _, rest = item.strip().partition(" ")
    said = words(first)
    request_words = words(request)
    if (
        rest.strip()
        and said
        and said[0] in _list_verbs(language)
        and (
            said == request_words[:1]
            or (said[0] in request_words and not _said_in_order(item, request_words))
        )
    ):
        return rest.strip()
    return item


def _said_in_order(text: str, said: list[str]) -> bool:
    """Whether the text's words are said together, in its order."""
    wanted = words(text)
    return any(
        said[start : start + len(wanted)] == wanted
        for start in range(len(said) - len(wanted) + 1)
    )


def names_no_item(item: str, language: str | None) -> bool:
    """Whether a to-do item is only the words that ask for one ("Put it",
    0.5B's item for "remind me: water the plants, put it on the shopping
    list"): it names nothing to add."""
    verbs = {accent_folded(verb) for verb in _list_verbs(language)}
    clitics = language_pack(language).clitics
    # A verb with its pronoun written on names nothing either: "Ponlo".
    return all(
        word in verbs or any(word.removesuffix(clitic) in verbs for clitic in clitics)
        for word in map(accent_folded, telling_words(item))
    )


def item_said_before(request: str, list_name: str, language: str | None) -> str:
    """The item a request says before the clause that puts it on the list,
    where that clause names no item ("water the plants" of "remind me: water
    the plants, put it on the shopping list"): the nearest clause before it
    that names something; "" if none does."""
    clauses = [part.strip() for part in re.split(r"[,:;]", request)]
    telling = telling_words(list_name)
    on_list = [i for i, part in enumerate(clauses) if telling_words(part) & telling]
    if not telling or not on_list:
        return ""
    before = clauses[: on_list[-1]]
    return next(
        (part for part in reversed(before) if not names_no_item(part, language)), ""
    )


def item_without_list(item: str, list_name: str, language: str | None) -> str:
    """A to-do item without the list it goes on, where the model copied the
    request's end into it ("Oma anrufen auf meine persönlichen Aufgaben" for
    the list Persönliche Aufgaben), and without the words that joined them.
    Only a list named at the item's very end is cut: "buy shopping bags"
    keeps its words on the list Shopping."""
    telling = telling_words(list_name)
    links = {
        singular(word)
        for pack in (language_pack(language), en.LANGUAGE)
        for link in pack.list_links
        for word in words(link)
    }
    found = [
        (match.start(), match.end(), singular(match.group().casefold()))
        for match in re.finditer(r"\w+", item)
    ]

    def names_list(word: str) -> bool:
        return any(all_said({part}, {word}) for part in telling)

    start = next((i for i, (_, _, word) in enumerate(found) if names_list(word)), None)
    if not telling or start is None:
        return item
    nouns = {
        singular(word)
        for pack in (language_pack(language), en.LANGUAGE)
        for noun in pack.list_nouns
        for word in words(noun)
    }
    tail = [word for _, _, word in found[start:]]
    if not all_said(telling, tail) or not all(
        names_list(word) or word in links or word in nouns for word in tail
    ):
        return item
    head = found[:start]
    while head and head[-1][2] in links:
        head.pop()
    return item[: head[-1][1]].strip() if head else item


def every(field: Callable[[Language], Iterable[str]]) -> tuple[str, ...]:
    """One field's words in every language, English first, each once."""
    return tuple(dict.fromkeys(word for pack in LANGUAGES for word in field(pack)))


# Pronouns a verb may have written on, in any language: the user's is not
# known for sure. Longest first: "las" before "la".
_CLITICS = tuple(
    sorted({accent_folded(c) for c in every(lambda pack: pack.clitics)}, key=len)[::-1]
)


def folded_verbs(phrases: Iterable[str]) -> Mapping[str, str]:
    """The one-word phrases, accent-folded, to themselves as written: what
    `bare_verbs` looks verbs up in."""
    return {accent_folded(p): p for p in phrases if len(words(p)) == 1}


def bare_verbs(said: Iterable[str], verbs: Mapping[str, str]) -> list[str]:
    """The words, each verb of `verbs` (`folded_verbs`) that has one or two
    pronouns written on as the verb alone: "apágame" as "apaga", "ciérrala"
    as "cierra", "spegnila" as "spegni". A word that is a verb itself stays."""
    return [_bare_verb(word, verbs) for word in said]


def _bare_verb(word: str, verbs: Mapping[str, str]) -> str:
    # Most words end in no pronoun: left as said, unfolded.
    if not word.casefold().endswith(_CLITICS):
        return word
    stems = [accent_folded(word)]
    if stems[0] in verbs:
        return word
    for _ in range(2):  # "dámelo": "da", "me", "lo"
        stems = [
            stem.removesuffix(clitic)
            for stem in stems
            for clitic in _CLITICS
            if stem.endswith(clitic) and len(stem) - len(clitic) >= 3
        ]
        for stem in stems:
            if stem in verbs:
                return verbs[stem]
    return word
