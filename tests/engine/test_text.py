"""Text matching in one module: words, foldings and names."""

from __future__ import annotations

import re

import pytest

from custom_components.jarvis.engine.lang import verb_domains
from custom_components.jarvis.engine.text import (
    accent_folded,
    all_said,
    any_of,
    folded_words,
    lower_words,
    mentions,
    said_in_plural,
    telling_words,
    within,
    words,
)


def test_two_foldings_of_case() -> None:
    # Names meet however they are spelled; word lists keep their "ß".
    assert words("Die STRAßE, bitte!") == ["die", "strasse", "bitte"]
    assert lower_words("Schließe die Tür") == ["schließe", "die", "tür"]
    assert lower_words("dim to 30%?", "%?") == ["dim", "to", "30%?"]


def test_plurals_fold_but_short_words_stay() -> None:
    assert folded_words("Kitchen Lights is on") == {"kitchen", "light", "is", "on"}


def test_telling_words_keep_short_capitals() -> None:
    assert telling_words("Living room TV of la casa") == {
        "living",
        "room",
        "tv",
        "casa",
    }


def test_within_finds_parts_of_words() -> None:
    assert within({"light", "ceil"}, "Ceiling Lights")
    assert not within({"lamp"}, "Ceiling Lights")


@pytest.mark.parametrize(
    ("parts", "said", "all_there"),
    [
        (
            {"batterie", "saugroboter"},
            "wie ist der Batteriestand vom Saugroboter",
            True,
        ),
        ({"tv"}, "turn off the TVs", False),  # too short to start a compound
        ({"ceiling"}, "turn on the lights", False),
    ],
)
def test_all_said_finds_words_at_the_start_of_compounds(
    parts: set[str], said: str, all_there: bool
) -> None:
    assert all_said(parts, words(said)) is all_there


@pytest.mark.parametrize(
    ("name", "said", "plural"),
    [
        ("Office Light", "turn off the lights in the office", True),
        ("Stehlampe", "schalte die Stehlampen aus", True),
        ("Office Lights", "turn off the office lights", False),
        ("Office Lights", "turn off the office light", False),
        ("Küche", "mach die Küchenlampe an", False),  # a compound
        ("Vorhang", "öffne den Vorhang im Esszimmer", False),
    ],
)
def test_a_name_said_only_in_the_plural(name: str, said: str, plural: bool) -> None:
    assert said_in_plural(name, said) is plural


def test_accents_and_apostrophes_fold_away() -> None:
    assert accent_folded("Don’t, SÍ, Ça") == "dont, si, ca"


@pytest.mark.parametrize(
    ("text", "names", "named"),
    [
        ("Unlock the Front Door now", ["front door"], True),
        ("unlock the front doorbell", ["Front Door"], False),
        (None, ["front door"], False),
        ("anything", ["", "!!"], False),
    ],
)
def test_mentions_whole_words(text: str | None, names: list[str], named: bool) -> None:
    assert mentions(text, names) is named


def test_any_of_matches_phrases_as_written() -> None:
    pattern = re.compile(rf"^(?:{any_of(['that.s all', 'c++'])})$")
    assert pattern.match("c++")
    assert not pattern.match("that's all")


def test_verbs_with_sharp_s_name_their_domain() -> None:
    # Case-folding the request turned "ß" into "ss" while the verbs kept it.
    assert verb_domains("Schließe das Garagentor", "de") == {"cover", "valve"}
