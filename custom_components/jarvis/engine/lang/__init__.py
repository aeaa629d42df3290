"""Every language Jarvis speaks, one module each; a new one is a module of
`Language` plus its line in `LANGUAGES`."""

from __future__ import annotations

from . import de, en, es, fr, it, nl, pt
from .base import Language

__all__ = ["LANGUAGES", "Language", "language_code", "language_pack"]

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
