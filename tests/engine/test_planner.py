"""The pre-flight planner: parsing, and its effect on the loop."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.llm.base import LLMClient
from custom_components.jarvis.engine.planner import parse_plan
from custom_components.jarvis.engine.types import Message
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
    assert "## Action plan" in loop_request[0]["content"]
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
