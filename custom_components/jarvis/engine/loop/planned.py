"""Calls a turn makes without the chat model: its plan's steps, and the call
a "which one?" of the turn before was answered for."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Literal

from ..planner import MEMORY, REPLY, PlanStep, grounded
from ..results import failed
from ..router import fits, is_question
from ..textproto import find_tool, new_call, validate_arguments
from ..types import ToolCall
from ..which_answer import answered_call, calls_for
from .host import StepHost, ToolCallDelta, call_step

if TYPE_CHECKING:
    from .turn import Turn


async def run_plan(turn: Turn, host: StepHost) -> bool:
    """Run the plan's tool steps without the chat model, then let it answer.

    Text-protocol models pay a whole call per tool step and often fumble
    it. The steps run in order while each resolves; a step that does not
    (a guess of the planner's), or one that fails, leaves the rest of the
    turn to the loop, which sees what ran. A question must not act on a
    guess, so it is left to the loop. Returns whether the turn is answered.
    """
    if is_question(turn.request):
        return False
    steps = [s for s in turn.plan.steps if s.action not in (REPLY, MEMORY)]

    async def calls() -> AsyncIterator[ToolCallDelta | None]:
        for step in steps:
            call = _planned_call(turn, step)
            yield None if call is None else await turn.guard(call)

    return await _run_then_say(turn, host, calls())


async def run_answered(turn: Turn, host: StepHost) -> bool:
    """Make the call whose "which one?" the request answers, on the device it
    names (`answered_call`), then say what was done. Returns whether the
    turn is answered: a call that failed is left for the loop to see."""
    if (answered := answered_call(turn.messages, turn.language)) is None:
        return False
    name, args, request = answered
    tool = find_tool(name, turn.catalogue)
    if tool is None or validate_arguments(tool, args):
        return False
    turn.offer(tool, "the device asked about")
    turn.call_count += 1

    async def call() -> AsyncIterator[ToolCallDelta | None]:
        yield ToolCallDelta(new_call(turn.call_count, tool.name, args))

    with calls_for(request):
        return await _run_then_say(turn, host, call())


async def _run_then_say(
    turn: Turn, host: StepHost, calls: AsyncIterator[ToolCallDelta | None]
) -> bool:
    """Run the calls in order, then say what they did. Returns whether the
    turn is answered: not where a call is missing (None) or fails, which
    leaves the rest to the loop."""
    async for delta in calls:
        if delta is None:
            return False
        match await _run(turn, host, delta):
            case "answered":
                return True
            case "failed":
                return False
    await turn.say_done(host)
    return True


async def _run(
    turn: Turn, host: StepHost, delta: ToolCallDelta
) -> Literal["answered", "failed", "ran"]:
    """Run one call the model did not make, and say its result's final reply
    if it gives one ("answered")."""
    results = await host.run_step(call_step(delta))
    turn.result.planned_calls += 1
    records = turn.record_calls([delta], results)
    if await turn.end_with_final_reply(host, records):
        return "answered"
    return "failed" if any(failed(r.result) for r in records) else "ran"


def _planned_call(turn: Turn, step: PlanStep) -> ToolCall | None:
    """The concrete call of a plan step, if the request backs it: an offered
    tool the router also picks for these words, arguments made of the
    user's own words, valid for the tool's schema."""
    tool = turn.tools.get(step.action)
    if (
        tool is None
        or step.arguments is None
        or not fits(tool, turn.request)
        or not grounded(step.arguments, turn.request)
    ):
        return None
    turn.call_count += 1
    call, problem = turn.resolve(new_call(turn.call_count, tool.name, step.arguments))
    return None if problem else call
