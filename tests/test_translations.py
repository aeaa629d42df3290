"""UI translations: one per language Jarvis speaks, each complete and faithful to
strings.json's keys and placeholders."""

from __future__ import annotations

from collections.abc import Iterator
import json
from pathlib import Path
import re
from typing import Any

import pytest

from custom_components.jarvis.engine.lang import LANGUAGES

INTEGRATION = Path(__file__).parent.parent / "custom_components" / "jarvis"
STRINGS = json.loads((INTEGRATION / "strings.json").read_text())
TRANSLATIONS = INTEGRATION / "translations"
# HA's placeholders; `<model>` and the like in the text are literal examples.
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def leaves(node: dict[str, Any], path: str = "") -> Iterator[tuple[str, str]]:
    for key, value in node.items():
        if isinstance(value, dict):
            yield from leaves(value, f"{path}{key}.")
        else:
            yield f"{path}{key}", value


def placeholders(text: str) -> list[str]:
    return sorted(_PLACEHOLDER.findall(text))


def test_every_spoken_language_has_a_ui_translation() -> None:
    assert {path.stem for path in TRANSLATIONS.glob("*.json")} == {
        pack.code for pack in LANGUAGES
    }


def test_english_is_strings_json() -> None:
    assert json.loads((TRANSLATIONS / "en.json").read_text()) == STRINGS


@pytest.mark.parametrize(
    "language", sorted(p.stem for p in TRANSLATIONS.glob("*.json") if p.stem != "en")
)
def test_translation_has_the_keys_and_placeholders_of_strings_json(
    language: str,
) -> None:
    source = dict(leaves(STRINGS))
    translated = dict(
        leaves(json.loads((TRANSLATIONS / f"{language}.json").read_text()))
    )
    assert translated.keys() == source.keys()
    for key, text in source.items():
        assert isinstance(translated[key], str), key
        assert translated[key].strip(), key
        assert placeholders(translated[key]) == placeholders(text), key
