"""What the loop does after a model step: one pure rule over a small record.

Small models need more than "stop when there are no calls": they retry a
failing call forever, repeat a call when shown their tools again, claim
actions no tool did when asked to write the reply, and go on talking after a
plan's step. Each of those is one line below, in the order it wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# Steps in a row whose every call failed before the loop stops retrying.
MAX_FAILED_STEPS = 2

type StepOutcome = Literal["llm_error", "junk", "cut", "reply", "calls"]
type Next = Literal[
    # The step's reply ends the turn.
    "end",
    # The model could not be reached: its apology was said.
    "llm_error",
    # The model wrote nothing usable: one tool-free call to repair it.
    "repair",
    # The model's call was cut off in a repetition loop, or a command's
    # calls nobody asked for all failed: Jarvis says what was done, or that
    # it did not understand. Asked again, 0.5B wrote the same loop, or a call
    # on a lamp the request never named; asked for words, it claimed what
    # was asked ("The user has deleted all their automations.").
    "not_understood",
    # A tool result carries Jarvis's own reply: say it word for word.
    "say_final_reply",
    # A question's calls all failed, and none was asked for: forget them,
    # one tool-free call for words.
    "reply_instead",
    # Every call failed again and again: say what could and could not be done.
    "give_up",
    # Every call of the turn can say what it did: Jarvis says it, no model call.
    "say_done",
    # No step left: say what could and could not be done.
    "out_of_steps",
    # The plan goes on: name its next step to the model.
    "next_plan_step",
    # A command the request joins to the one done is left: name it to the model.
    "next_part",
    # Every call worked: ask for the answer without offering tools.
    "answer",
    # Another step with tools.
    "step",
]


@dataclass(frozen=True, slots=True)
class AfterStep:
    """What a step left the turn with."""

    outcome: StepOutcome
    # A tool result of this step carries a reply only Jarvis can give.
    final_reply: bool = False
    # Steps in a row, this one included, whose every call failed.
    failed_steps: int = 0
    # The model is on the text protocol (shown its tools again, it repeats the call).
    text_mode: bool = False
    # Every call of this step worked, and none was a tool search.
    clean: bool = False
    # The plan has a step that has not run yet.
    planned: bool = False
    # Every call of the turn says what it did, and the request asks nothing.
    can_say_done: bool = False
    # The request joins no commands ("... and ...", "dann"): a native model
    # that made clean calls has nothing left to call.
    one_command: bool = False
    # On the text protocol, a command the request joins to others that no
    # call has acted on: 0.5B makes one call per reply.
    part_left: bool = False
    # On the text protocol, every call of a request that joins commands
    # failed, and none was asked alone yet: 0.5B mixed "apaga la luz del techo
    # en la cocina y luego cierra la cortina en el jardín" into one call
    # (name "light", area "cooking", domain "awning") and repeated it.
    fumbled_parts: bool = False
    # Shown its tools only in case (no tool's words in the request), the
    # model took the user's words for a device the home does not have in
    # every call: "say hello to my friend Anna" turned on "Anna", then
    # searched and retried to the end.
    mistook_words: bool = False
    # Every call of the turn failed, and the request points nowhere in the
    # home: "I love you, Jarvis" turned on "turn on", retried, and 0.5B
    # asked for a summary read the failure out or claimed what was asked.
    unasked_calls: bool = False
    # The request is a question.
    question: bool = False
    steps_left: int = 0


def next_step(after: AfterStep) -> Next:
    """What the loop does next."""
    if after.outcome == "llm_error":
        return "llm_error"
    if after.outcome == "junk":
        return "repair"
    if after.outcome == "cut":
        return "not_understood"
    if after.outcome == "reply":
        return "end"
    if after.final_reply:
        return "say_final_reply"
    if after.mistook_words:
        return "repair"
    if after.unasked_calls:
        return "reply_instead" if after.question else "not_understood"
    if after.fumbled_parts and after.steps_left:
        return "next_part"
    if after.failed_steps >= MAX_FAILED_STEPS:
        return "give_up"
    if after.planned:
        return "next_plan_step" if after.steps_left else "out_of_steps"
    if after.clean and after.part_left and after.steps_left:
        return "next_part"
    if after.clean and after.can_say_done and (after.text_mode or after.one_command):
        return "say_done"
    if not after.steps_left:
        return "out_of_steps"
    return "answer" if after.text_mode and after.clean else "step"
