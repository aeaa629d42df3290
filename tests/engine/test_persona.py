"""The persona's name from the wake word."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.persona import persona_name, with_name
from custom_components.jarvis.prompts import DEFAULT_PROMPT


@pytest.mark.parametrize(
    ("wake_word", "name"),
    [
        ("Okay Nabu", "Nabu"),
        ("okay_nabu", "Nabu"),
        ("Hey Mycroft", "Mycroft"),
        ("hey_mycroft_v0.1", "Mycroft"),
        ("Alexa", "Alexa"),
        ("alexa_v0.1", "Alexa"),
        ("Hey Jarvis", "Jarvis"),
        ("hey home assistant", "Home Assistant"),
        ("Hey GLaDOS", "GLaDOS"),
        ("hey", None),
        ("", None),
        (None, None),
    ],
)
def test_the_name_in_a_wake_word(wake_word: str | None, name: str | None) -> None:
    assert persona_name(wake_word) == name


def test_the_default_persona_takes_the_name() -> None:
    named = with_name(DEFAULT_PROMPT, "Nabu")
    assert named.startswith("You are Nabu, ")
    assert "Jarvis" not in named
    assert with_name(DEFAULT_PROMPT, "Jarvis") == DEFAULT_PROMPT
    assert with_name(DEFAULT_PROMPT, None) == DEFAULT_PROMPT


def test_a_persona_of_the_users_own_is_left_alone() -> None:
    prompt = "You are Friday, a cheerful assistant. Jarvisland is a town."
    assert with_name(prompt, "Mycroft") == prompt
    assert with_name("You are Friday.", "Nabu") == "You are Friday."
