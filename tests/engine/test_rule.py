"""The loop's next-step rule, alone, as a table."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.loop.rule import (
    MAX_FAILED_STEPS,
    AfterStep,
    Next,
    next_step,
)

CALLS = AfterStep(outcome="calls", steps_left=3)


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        (AfterStep(outcome="reply"), "end"),
        (AfterStep(outcome="llm_error", steps_left=5), "llm_error"),
        (AfterStep(outcome="junk", steps_left=5), "repair"),
        # A call cut off in a repetition loop is not asked for again.
        (AfterStep(outcome="cut", steps_left=5), "not_understood"),
        # A final reply wins over everything that could come after the calls.
        (
            AfterStep(outcome="calls", final_reply=True, failed_steps=9, planned=True),
            "say_final_reply",
        ),
        (AfterStep(outcome="calls", failed_steps=MAX_FAILED_STEPS), "give_up"),
        (
            AfterStep(outcome="calls", failed_steps=MAX_FAILED_STEPS - 1, steps_left=1),
            "step",
        ),
        # The plan goes on while there are steps, even if Jarvis could say it.
        (
            AfterStep(
                outcome="calls",
                planned=True,
                text_mode=True,
                clean=True,
                can_say_done=True,
                steps_left=2,
            ),
            "next_plan_step",
        ),
        (AfterStep(outcome="calls", planned=True, steps_left=0), "out_of_steps"),
        (
            AfterStep(
                outcome="calls",
                text_mode=True,
                clean=True,
                can_say_done=True,
                steps_left=0,
            ),
            "say_done",
        ),
        # A joined command no call acted on: named to the model, while there
        # are steps; then what was done is said.
        (
            AfterStep(
                outcome="calls",
                text_mode=True,
                clean=True,
                can_say_done=True,
                part_left=True,
                steps_left=2,
            ),
            "next_part",
        ),
        (
            AfterStep(
                outcome="calls",
                text_mode=True,
                clean=True,
                can_say_done=True,
                part_left=True,
                steps_left=0,
            ),
            "say_done",
        ),
        # Joined commands mixed into failing calls: the first asked alone,
        # before the failures would end the turn.
        (
            AfterStep(
                outcome="calls",
                text_mode=True,
                failed_steps=MAX_FAILED_STEPS,
                fumbled_parts=True,
                steps_left=2,
            ),
            "next_part",
        ),
        # A native model's one command ends in one call too: Jarvis says it.
        (
            AfterStep(
                outcome="calls",
                clean=True,
                can_say_done=True,
                one_command=True,
                steps_left=2,
            ),
            "say_done",
        ),
        # Several commands ("... and ..."): the native model may have more calls.
        (
            AfterStep(outcome="calls", clean=True, can_say_done=True, steps_left=2),
            "step",
        ),
        (
            AfterStep(outcome="calls", text_mode=True, clean=True, steps_left=2),
            "answer",
        ),
        # Calls nobody asked for all failed: a question gets words, a
        # command Jarvis's apology; a model that mistook words, words.
        (
            AfterStep(outcome="calls", unasked_calls=True, question=True, steps_left=2),
            "reply_instead",
        ),
        (
            AfterStep(outcome="calls", unasked_calls=True, steps_left=2),
            "not_understood",
        ),
        (
            AfterStep(outcome="calls", mistook_words=True, unasked_calls=True),
            "repair",
        ),
        # A failed call or a tool search: the model gets its tools again.
        (AfterStep(outcome="calls", text_mode=True, clean=False, steps_left=2), "step"),
        (CALLS, "step"),
        (AfterStep(outcome="calls", steps_left=0), "out_of_steps"),
    ],
)
def test_next_step(after: AfterStep, expected: Next) -> None:
    assert next_step(after) == expected
