"""Calls nobody asked for: every call of a turn failed, and the request
points nowhere in the home. 0.5B looked up "12 * 7" for "What's 12 times
7?", turned on "turn on" for "I love you, Jarvis", retried, and, asked for a
summary, wrote junk or claimed what was asked."""

from __future__ import annotations

from collections.abc import Sequence
import json

import pytest

from custom_components.jarvis.engine.grounding import Device
from custom_components.jarvis.engine.llm.base import LLMClient
from custom_components.jarvis.engine.loop import (
    LocalStepHost,
    LoopSettings,
    ReplyLoop,
    TurnResult,
)
from custom_components.jarvis.engine.loop.instructions import (
    PLAIN_REPLY_INSTRUCTION,
    in_language,
)
from custom_components.jarvis.engine.phrases import NOT_UNDERSTOOD
from custom_components.jarvis.engine.results import NO_MATCH
from custom_components.jarvis.engine.types import JsonObject, Message
from tests.engine.test_loop import TOOLS
from tests.scripted_llm import Reply, ScriptedLLMServer

KITCHEN_LIGHT = Device(
    ("Kitchen Light",), "light", "off", entity_id="light.kitchen", places=("Kitchen",)
)


def home(results: Sequence[JsonObject]) -> Sequence[Device]:
    return [KITCHEN_LIGHT]


async def no_such_device(args: JsonObject) -> JsonObject:
    return {"error": NO_MATCH, "error_text": f"No device named {args.get('name')}."}


async def run(client: LLMClient, history: list[Message]) -> TurnResult:
    host = LocalStepHost(
        {"HassTurnOn": no_such_device, "GetLiveContext": no_such_device}
    )
    return await ReplyLoop(client, LoopSettings(model="qwen2.5-coder:0.5b")).run(
        system_prompt="You are Jarvis.",
        history=history,
        tools=TOOLS,
        host=host,
        language="en",
        house=home,
    )


def call(name: str, arguments: JsonObject) -> Reply:
    return Reply(content=json.dumps({"name": name, "arguments": arguments}))


async def test_a_question_is_answered_as_if_no_call_was_made(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """Shown its failed look-up, 0.5B read it out; without it, it answered."""
    scripted_llm.script(
        call("GetLiveContext", {"name": "12 * 7"}), Reply(content="It is 84.")
    )
    result = await run(client, [Message("user", "What's 12 times 7?")])

    assert result.text == "It is 84."
    assert result.ended == "done"
    assert len(scripted_llm.chat_requests) == 2
    messages = scripted_llm.chat_requests[1]["json"]["messages"]
    assert messages[-1]["content"] == in_language(PLAIN_REPLY_INSTRUCTION, "en")
    assert "12 * 7" not in json.dumps(messages)


async def test_a_command_for_the_world_gets_the_apology_at_once(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """Asked for words, 0.5B answered "delete all my automations" with "The
    user has deleted all their automations."; nothing asks it again."""
    scripted_llm.script(
        call("HassTurnOn", {"name": "turn on"}), Reply(content="Calling your mother.")
    )
    result = await run(client, [Message("user", "Call my mother")])

    assert result.text == NOT_UNDERSTOOD["en"]
    assert len(scripted_llm.chat_requests) == 1


@pytest.mark.parametrize(
    "history",
    [
        [Message("user", "kitchen please")],
        [
            Message("user", "it is dark in here"),
            Message("assistant", "Shall I turn on the kitchen light?"),
            Message("user", "yes"),
        ],
        [Message("user", "anything with a light?")],
    ],
)
async def test_a_request_that_points_to_the_home_keeps_its_failure(
    client: LLMClient, scripted_llm: ScriptedLLMServer, history: list[Message]
) -> None:
    """A failed call on something the user pointed to is the model's to put
    right, with its tools and the failure in front of it."""
    scripted_llm.script(
        call("HassTurnOn", {"name": "Kitchen"}), Reply(content="Which one?")
    )
    result = await run(client, history)

    assert result.text == "Which one?"
    second = scripted_llm.chat_requests[1]["json"]
    assert "No device named Kitchen" in json.dumps(second["messages"])
    assert second["messages"][-1]["content"] != in_language(
        PLAIN_REPLY_INSTRUCTION, "en"
    )


async def test_a_failed_call_on_no_device_is_seen_by_the_model(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """A clock or a web search that fails picks no device: the model must see
    its failure, or it answers from nothing."""
    scripted_llm.script(
        call("GetLiveContext", {"query": "time"}),
        Reply(content="I could not read the clock."),
    )
    result = await run(client, [Message("user", "What time is it?")])

    assert result.text == "I could not read the clock."
    second = json.dumps(scripted_llm.chat_requests[1]["json"]["messages"])
    assert "No device named None" in second
