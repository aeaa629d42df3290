"""Commands that name no device, read in each language's words."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.referring import (
    Referring,
    elided_target,
    referring_command,
)


@pytest.mark.parametrize(
    ("text", "language", "meant"),
    [
        ("turn it off", "en", Referring("turnoff")),
        ("can you turn them all off please", "en", Referring("turnoff")),
        ("turn it back on", "en", Referring("turnon")),
        ("unlock it", "en", Referring("turnoff")),
        ("set it to 50", "en", Referring("level", 50)),
        ("set it to 21.5 °C", "en", Referring("level", 21.5)),
        ("make it 40%", "en", Referring("level", 40, percent=True)),
        ("Ahora apágala", "es", Referring("turnoff")),
        ("enciéndelo", "es", Referring("turnon")),
        ("ponlo al 50 por ciento", "es", Referring("level", 50, percent=True)),
        ("apágalas todas", "es", Referring("turnoff")),
        ("mach es aus", "de", Referring("turnoff")),
        ("stelle sie auf 30 Prozent", "de", Referring("level", 30, percent=True)),
        ("éteins-la", "fr", Referring("turnoff")),
        ("spegnila", "it", Referring("turnoff")),
        ("zet het uit", "nl", Referring("turnoff")),
        ("desliga-o", "pt", Referring("turnoff")),
        # English words count in every language: people mix them.
        ("turn it off", "de", Referring("turnoff")),
    ],
)
def test_a_command_that_names_no_device(
    text: str, language: str, meant: Referring
) -> None:
    assert referring_command(text, language) == meant


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("turn off the lamp", "en"),  # names a device
        ("turn everything off", "en"),  # the whole home
        ("Mach alles im Büro aus", "de"),
        ("apaga todo", "es"),
        ("turn it off in 5 minutes", "en"),  # later: a timer's
        ("is it on?", "en"),  # a question
        ("stop", "en"),  # ends the conversation
        ("open", "en"),  # no word for a device nor a verb of none
        ("turn it on and off", "en"),  # on and off
        ("set it to 20 or 30", "en"),  # which level?
        ("make it warmer", "en"),  # no level said
    ],
)
def test_a_command_that_names_something_or_asks_nothing(
    text: str, language: str
) -> None:
    assert referring_command(text, language) is None


@pytest.mark.parametrize(
    ("text", "language", "target"),
    [
        ("and the kitchen too", "en", "kitchen"),
        ("y el Dormitorio", "es", "Dormitorio"),
        ("und im Büro auch", "de", "Büro"),
        ("the bed light as well please", "en", "bed light"),
        # An action, a number or nothing to name: not a target alone.
        ("turn on the kitchen", "en", None),
        ("and the kitchen to 50%", "en", None),
        ("too", "en", None),
    ],
)
def test_a_request_that_names_only_a_target(
    text: str, language: str, target: str | None
) -> None:
    assert elided_target(text, language) == target
