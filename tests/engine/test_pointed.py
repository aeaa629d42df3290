"""Whether the user's words point to the home: the engine's judgement of
calls nobody asked for."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.grounding import Device
from custom_components.jarvis.engine.pointed import (
    asks_of_the_home,
    points_nowhere,
    points_to,
)
from custom_components.jarvis.engine.text import folded_words
from custom_components.jarvis.engine.types import Message

HOME = [
    Device(
        ("Bed Light", "Nightstand"),
        "light",
        "off",
        entity_id="light.bed_light",
        places=("Bedroom", "Upstairs"),
    ),
    Device(("Front Door",), "lock", "locked", entity_id="lock.front_door"),
    Device(("Kitchen TV",), "media_player", "off", entity_id="media_player.tv_1"),
]


@pytest.mark.parametrize(
    ("said", "asks"),
    [
        # A household action said, whatever it names.
        ("switch it on", True),
        ("dim it a bit", True),
        # A device by a word of its name, an alias, its area, its floor.
        ("the bed one please", True),
        ("nightstand", True),
        ("what about the bedroom", True),
        ("everything upstairs", True),
        # By its kind or a verb said of its kind, in any language.
        ("is any music on?", True),
        ("der Fernseher bitte", True),
        ("unlock", True),
        # A short name word only whole: "TV" is not the start of "tvshow".
        ("tv", True),
        ("I love you, Jarvis", False),
        ("call my mother", False),
        ("what's 12 times 7?", False),
    ],
)
def test_asks_of_the_home(said: str, asks: bool) -> None:
    assert asks_of_the_home(said, HOME) is asks


def test_a_yes_counts_the_question_it_answers() -> None:
    """A "yes" to Jarvis's offer points where the offer does; a statement
    of Jarvis's before it does not count."""
    offered = [
        Message("user", "it is dark in here"),
        Message("assistant", "Shall I turn on the bed light?"),
        Message("user", "yes"),
    ]
    assert not points_nowhere(offered, HOME)
    stated = [
        Message("user", "good night"),
        Message("assistant", "Good night, the bed light is on."),
        Message("user", "I love you"),
    ]
    assert points_nowhere(stated, HOME)
    assert not points_nowhere([], HOME)


@pytest.mark.parametrize(
    ("said", "pointed"), [("switch off the tv", True), ("the tvshow", False)]
)
def test_a_short_word_for_a_kind_points_to_it(said: str, pointed: bool) -> None:
    """ "TV" is a word for a player none of whose names says it."""
    player = Device(("Lounge room",), "media_player", "playing")
    assert points_to(player, folded_words(said)) is pointed
