"""The pre-flight planner: parsing, and its effect on the loop."""

from __future__ import annotations

import json
from typing import Any

import pytest

from custom_components.jarvis.engine.llm.base import LLMClient
from custom_components.jarvis.engine.loop import (
    ANSWER_INSTRUCTION,
    LocalStepHost,
    in_language,
)
from custom_components.jarvis.engine.planner import (
    grounded,
    parse_plan,
    planner_prompt,
)
from custom_components.jarvis.engine.types import JsonObject, Message
from tests.engine.test_loop import TOOLS, make_host, run_loop, sent_tools
from tests.scripted_llm import Reply, ScriptedLLMServer


def test_parse_reply_only_memory_and_tool_plans() -> None:
    assert parse_plan("1. reply", TOOLS).reply_only
    memory = parse_plan("1. memory: wife's name\n2. reply", TOOLS)
    assert memory.needs_memory
    assert not memory.reply_only
    plan = parse_plan(
        "<think>x</think>1. hassturnon: kitchen light\n2) GetLiveContext: temperature\n3. reply",
        TOOLS,
    )
    assert plan.tools == ["HassTurnOn", "GetLiveContext"]
    assert plan.next_after(["HassTurnOn"]).action == "GetLiveContext"
    assert plan.next_after(["HassTurnOn", "GetLiveContext"]) is None


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "1. OpenTheDoor: now\n2. reply",
        "Sure! I would first turn on the light and then reply.",
        "\n".join(["1. reply"] * 6),
        "1. reply\n2. memory",
    ],
)
def test_unusable_plans_are_empty(junk: str) -> None:
    assert parse_plan(junk, TOOLS).steps == []


async def test_reply_only_plan_offers_no_tools(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(content="1. reply"), Reply(content="Good evening!"))
    host, _ = make_host()
    result = await run_loop(
        client, host, planner=True, history=[Message("user", "good evening jarvis")]
    )

    assert result.text == "Good evening!"
    assert result.tool_calls == []
    assert result.llm_calls == 2
    assert not sent_tools(scripted_llm.chat_requests[1])
    assert (
        "Available tools"
        not in scripted_llm.chat_requests[1]["json"]["messages"][0]["content"]
    )


async def test_multi_step_plan_is_shown_and_nudged(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(
            content="1. HassTurnOn: kitchen light\n2. GetLiveContext: temperature\n3. reply"
        ),
        Reply(tool_calls=[("HassTurnOn", {"name": "kitchen light"})]),
        Reply(tool_calls=[("GetLiveContext", {})]),
        Reply(content="The light is on and the kitchen light was off before."),
    )
    host, calls = make_host()
    result = await run_loop(client, host, planner=True, tool_router=True)

    assert calls == [{"name": "kitchen light"}]
    assert result.plan == [
        "HassTurnOn: kitchen light",
        "GetLiveContext: temperature",
        "reply: ",
    ]
    assert result.tool_reasons["GetLiveContext"] == "plan"
    loop_request = scripted_llm.chat_requests[1]["json"]["messages"]
    assert "## Action plan" not in loop_request[0]["content"]
    assert "## Action plan" in loop_request[-1]["content"]
    after_first = scripted_llm.chat_requests[2]["json"]["messages"][-1]["content"]
    assert after_first == "Next step of the plan: GetLiveContext (temperature)"


async def test_failed_planner_falls_open(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(status=503),
        Reply(tool_calls=[("HassTurnOn", {"name": "kitchen light"})]),
        Reply(content="On."),
    )
    host, calls = make_host()
    result = await run_loop(client, host, planner=True)

    assert calls == [{"name": "kitchen light"}]
    assert result.text == "On."
    assert result.plan == []


SMALL = "qwen2.5-coder:0.5b"  # on the text protocol from the start
TURN_ON = '1. HassTurnOn: {"name": "kitchen light"}'
TURN_ON_AND_TELL = "turn on the kitchen light and tell me its state"


def test_tool_steps_carry_their_arguments() -> None:
    plan = parse_plan(f"{TURN_ON}\n2. GetLiveContext: {{}}\n3. reply", TOOLS)
    assert [s.arguments for s in plan.steps] == [{"name": "kitchen light"}, {}, None]
    # Free text is a plan still, but no call: nothing to run directly.
    assert (
        parse_plan("1. HassTurnOn: the kitchen light", TOOLS).steps[0].arguments is None
    )
    # Small models go on inventing examples after a blank line.
    assert parse_plan("1. reply\n\nRequest: hi\n1. reply", TOOLS).reply_only


def test_the_planner_sees_arguments_and_only_examples_it_can_follow() -> None:
    prompt = planner_prompt(TOOLS)
    assert "- HassTurnOn(name, area): Turns on a device." in prompt
    assert '1. HassTurnOn: {"name": "desk lamp"}' in prompt
    assert "1. GetLiveContext: {}" in prompt
    # Without HassTurnOn, its example would name a tool that is not there.
    assert "HassTurnOn" not in planner_prompt(TOOLS[1:])


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"name": "Kitchen Lights"}, True),
        ({"name": "kitchen light", "area": "kitchen"}, True),
        ({"brightness": 30}, True),
        ({"name": "kitchen light", "floor": "ground floor"}, False),
        ({"brightness": 50}, False),
        ({"name": ["kitchen", "pantry"]}, False),
        ({"on": True}, False),
    ],
)
def test_arguments_are_grounded_in_the_request(
    arguments: dict[str, object], expected: bool
) -> None:
    assert grounded(arguments, "dim the kitchen lights to 30%") is expected


def run_planned(client: LLMClient, host: LocalStepHost, request: str) -> Any:
    """A planned turn of a small model, on the text protocol from the start."""
    return run_loop(
        client, host, model=SMALL, planner=True, history=[Message("user", request)]
    )


def planned_host(
    turn_on: dict[str, object] | None = None,
) -> tuple[LocalStepHost, list[str]]:
    """A host that logs the order tools ran in; HassTurnOn answers `turn_on`."""
    ran: list[str] = []

    async def turn_on_tool(args: JsonObject) -> JsonObject:
        ran.append(f"HassTurnOn {args['name']}")
        return dict(turn_on or {"success": True})

    async def live_context(args: JsonObject) -> JsonObject:
        ran.append("GetLiveContext")
        return {"kitchen light": "on"}

    return LocalStepHost(
        {"HassTurnOn": turn_on_tool, "GetLiveContext": live_context}
    ), ran


async def test_text_protocol_runs_a_resolved_plan_without_the_chat_model(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(content=f"{TURN_ON}\n2. GetLiveContext: {{}}\n3. reply"),
        Reply(content="The kitchen light is on."),
    )
    host, ran = planned_host()
    result = await run_planned(client, host, TURN_ON_AND_TELL)

    assert ran == ["HassTurnOn kitchen light", "GetLiveContext"]
    assert result.text == "The kitchen light is on."
    assert (result.llm_calls, result.planned_calls) == (2, 2)
    assert [call.purpose for call in result.calls] == ["plan", "answer"]
    answer = scripted_llm.chat_requests[1]["json"]
    assert not answer.get("tools")
    # The tools stay listed, as a step with tools lists them: the same start.
    assert "Available tools" in answer["messages"][0]["content"]
    assert answer["messages"][-1]["content"] == in_language(ANSWER_INSTRUCTION, "en")


@pytest.mark.parametrize(
    ("request_text", "plan"),
    [
        # An argument the user never said.
        ("turn on the kitchen light", '1. HassTurnOn: {"name": "pantry light"}'),
        # No arguments written.
        ("turn on the kitchen light", "1. HassTurnOn: the kitchen light"),
        # A question never acts on the planner's guess.
        ("did you turn on the kitchen light?", TURN_ON),
        # A tool the router would not pick for these words.
        ("kitchen light", TURN_ON),
    ],
)
async def test_steps_that_do_not_resolve_go_to_the_loop(
    client: LLMClient, scripted_llm: ScriptedLLMServer, request_text: str, plan: str
) -> None:
    scripted_llm.script(
        Reply(content=f"{plan}\n2. reply"),
        Reply(content='{"name": "GetLiveContext", "arguments": {}}'),
        Reply(content="It is on."),
    )
    host, ran = planned_host()
    result = await run_planned(client, host, request_text)

    assert ran == ["GetLiveContext"]
    assert (result.llm_calls, result.planned_calls) == (3, 0)
    assert result.text == "It is on."


async def test_a_failed_planned_step_leaves_the_rest_to_the_loop(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(content=f"{TURN_ON}\n2. GetLiveContext: {{}}\n3. reply"),
        Reply(content="I could not find the kitchen light."),
    )
    host, ran = planned_host(
        {"success": False, "error": "no_match", "error_text": "No light named so."}
    )
    result = await run_planned(client, host, TURN_ON_AND_TELL)

    assert ran == ["HassTurnOn kitchen light"]
    assert result.planned_calls == 1
    assert result.text == "I could not find the kitchen light."
    # The loop's model saw the failure and its tools, not an order to answer.
    step = scripted_llm.chat_requests[1]["json"]["messages"]
    assert "Available tools" in step[0]["content"]
    assert "No light named so." in step[-1]["content"]


async def test_the_steps_before_a_guess_run_and_the_loop_does_the_rest(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(
            content=f'{TURN_ON}\n2. HassTurnOn: {{"name": "pantry light"}}\n3. reply'
        ),
        Reply(content='{"name": "GetLiveContext", "arguments": {}}'),
        Reply(content="The kitchen light is on."),
    )
    host, ran = planned_host()
    result = await run_planned(client, host, TURN_ON_AND_TELL)

    assert ran == ["HassTurnOn kitchen light", "GetLiveContext"]
    assert result.planned_calls == 1
    assert result.text == "The kitchen light is on."
    # The loop's model saw what the plan did.
    step = scripted_llm.chat_requests[1]["json"]["messages"]
    assert "HassTurnOn" in json.dumps(step)
