"""Each language's words in one pack: found by tag, complete, and shaped alike."""

from __future__ import annotations

from dataclasses import fields
from string import Formatter

import pytest

from custom_components.jarvis.engine.lang import LANGUAGES, Language, language_pack

ENGLISH = LANGUAGES[0]


@pytest.mark.parametrize(
    ("tag", "code"),
    [("de-CH", "de"), ("pt_BR", "pt"), ("FR", "fr"), ("sv", "en"), (None, "en")],
)
def test_language_pack_by_tag(tag: str | None, code: str) -> None:
    assert language_pack(tag).code == code


def test_the_languages_jarvis_speaks() -> None:
    assert [pack.code for pack in LANGUAGES] == [
        "en",
        "de",
        "es",
        "fr",
        "it",
        "nl",
        "pt",
    ]


def _slots(text: str) -> set[str]:
    return {name for _, name, _, _ in Formatter().parse(text) if name}


@pytest.mark.parametrize("pack", LANGUAGES[1:], ids=lambda pack: pack.code)
def test_pack_fills_what_english_fills(pack: Language) -> None:
    """The same verbs, the same {placeholders}, and no empty word."""
    for field in fields(Language):
        ours, english = getattr(pack, field.name), getattr(ENGLISH, field.name)
        if isinstance(english, str):
            assert _slots(ours) == _slots(english), field.name
        elif isinstance(english, tuple):
            assert all(ours), field.name
        else:
            assert ours.keys() == english.keys(), field.name
            for key, value in ours.items():
                if isinstance(value, tuple):
                    assert value, (field.name, key)
                    assert all(value), (field.name, key)
                else:
                    assert _slots(value) == _slots(english[key]), (field.name, key)
