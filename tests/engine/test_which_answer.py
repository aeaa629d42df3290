"""The user's answer to "which one do you mean?" runs the call it was asked
for, on the device it names."""

from __future__ import annotations

import json

import pytest

from custom_components.jarvis.engine.phrases import FINAL_REPLY
from custom_components.jarvis.engine.types import Message, ToolCall
from custom_components.jarvis.engine.which_answer import CHOICES, answered_call

QUESTION = "Which one do you mean: Ecobee, HeatPump or Hvac?"
CALL = ToolCall(
    "call_1",
    "HassClimateSetTemperature",
    {"name": "Living Room", "area": "Living Room", "floor": "1", "temperature": 21},
)
ASKED = [
    Message("user", "set the thermostat to 21"),
    Message("assistant", tool_calls=[CALL]),
    Message(
        "tool",
        json.dumps(
            {
                "error": "ambiguous_target",
                FINAL_REPLY: QUESTION,
                CHOICES: [{"name": name} for name in ("Ecobee", "HeatPump", "Hvac")],
            }
        ),
        tool_call_id="call_1",
    ),
    Message("assistant", QUESTION),
]


@pytest.mark.parametrize(
    ("answer", "language", "name"),
    [
        ("the Ecobee", "en", "Ecobee"),
        ("yes, the hvac please", "en", "Hvac"),
        ("HeatPump", "de", "HeatPump"),
        ("den Ecobee bitte", "de", "Ecobee"),
    ],
)
def test_an_answer_naming_one_choice_is_the_call_on_it(
    answer: str, language: str, name: str
) -> None:
    """The place and name the model guessed give way to the one chosen."""
    messages = [*ASKED, Message("user", answer)]
    assert answered_call(messages, language) == (
        "HassClimateSetTemperature",
        {"temperature": 21, "name": name},
        # The request the call is for: the one asked about, and the answer.
        f"set the thermostat to 21 {answer}",
    )


@pytest.mark.parametrize(
    "answer",
    [
        # Two of them, or none.
        "Ecobee or Hvac",
        "the big one",
        # A new request that names a choice among other words.
        "turn off the hvac in the kitchen",
    ],
)
def test_an_answer_naming_no_one_choice_alone_is_left_to_the_model(
    answer: str,
) -> None:
    assert answered_call([*ASKED, Message("user", answer)], "en") is None


def test_only_the_turn_just_before_is_answered() -> None:
    """A question of an earlier turn is no longer open."""
    messages = [
        *ASKED,
        Message("user", "what time is it?"),
        Message("assistant", "It is noon."),
        Message("user", "the Ecobee"),
    ]
    assert answered_call(messages, "en") is None


def test_a_question_the_model_went_past_is_not_open() -> None:
    """Where the turn's reply was not the question (the model called again
    and answered), nothing was asked."""
    messages = [*ASKED[:-1], Message("assistant", "Done."), Message("user", "Hvac")]
    assert answered_call(messages, "en") is None


SHARED = [
    Message("user", "starte den Staubsauger"),
    Message("assistant", tool_calls=[ToolCall("call_1", "HassVacuumStart", {})]),
    Message(
        "tool",
        json.dumps(
            {
                FINAL_REPLY: "Welches meinst du: Saugroboter (Büro) oder "
                "Saugroboter (Küche)?",
                CHOICES: [
                    {"name": "Saugroboter", "area": "Büro"},
                    {"name": "Saugroboter", "area": "Küche"},
                ],
            }
        ),
        tool_call_id="call_1",
    ),
    Message(
        "assistant", "Welches meinst du: Saugroboter (Büro) oder Saugroboter (Küche)?"
    ),
]


@pytest.mark.parametrize(
    ("answer", "area"),
    [
        ("den im Büro", "Büro"),
        ("Küche", "Küche"),
        ("den Saugroboter in der Küche bitte", "Küche"),
    ],
)
def test_choices_of_one_name_are_told_apart_by_their_area(
    answer: str, area: str
) -> None:
    """Five robots called Saugroboter were asked about as one name (a
    generated home no session had written)."""
    assert answered_call([*SHARED, Message("user", answer)], "de") == (
        "HassVacuumStart",
        {"name": "Saugroboter", "area": area},
        f"starte den Staubsauger {answer}",
    )


@pytest.mark.parametrize(
    "answer", ["den Saugroboter", "Büro oder Küche", "schalte das Licht im Büro ein"]
)
def test_an_answer_naming_no_one_area_is_left_to_the_model(answer: str) -> None:
    assert answered_call([*SHARED, Message("user", answer)], "de") is None
