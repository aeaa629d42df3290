"""Every language Jarvis speaks, one module each; a new one is a module of
`Language` plus its line in `LANGUAGES`."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..text import mentions, words
from . import de, en, es, fr, it, nl, pt
from .base import Language

__all__ = [
    "LANGUAGES",
    "Language",
    "every",
    "item_without_verb",
    "language_code",
    "language_pack",
    "leaves_out",
    "verb_domains",
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


def leaves_out(text: str, language: str | None) -> bool:
    """Whether a request leaves devices out ("all lights except the lamp"),
    in its language or in English."""
    return any(
        mentions(text, pack.exceptions)
        for pack in (language_pack(language), en.LANGUAGE)
    )


def item_without_verb(item: str, request: str, language: str | None) -> str:
    """A to-do item without the request's verb that the model copied into it
    ("Apunta llamar a la abuela" for "apunta llamar a la abuela en mis
    tareas"): that verb asks for the item to be put on a list."""
    first, _, rest = item.strip().partition(" ")
    verbs = {
        verb
        for pack in (language_pack(language), en.LANGUAGE)
        for verb in pack.verb_domains.get("todo", ())
    }
    said = words(first)
    if rest.strip() and said and said == words(request)[:1] and said[0] in verbs:
        return rest.strip()
    return item


def every(field: Callable[[Language], Iterable[str]]) -> tuple[str, ...]:
    """One field's words in every language, English first, each once."""
    return tuple(dict.fromkeys(word for pack in LANGUAGES for word in field(pack)))
