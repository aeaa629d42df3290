"""One stable prompt prefix: the system prompt stays the same from request
to request, this turn's context goes with the request, and a warm-up reads
the prefix before the first request."""

from __future__ import annotations

import os
from typing import Any

import pytest

from custom_components.jarvis.engine.llm.base import LLMClient
from custom_components.jarvis.engine.llm.openai_client import _usage
from custom_components.jarvis.engine.loop import LoopSettings, ReplyLoop
from custom_components.jarvis.engine.loop.instructions import (
    PLAIN_REPLY_INSTRUCTION,
    in_language,
)
from custom_components.jarvis.engine.loop.step import CONTEXT_HEADER
from custom_components.jarvis.engine.router import TOOL_SEARCH
from custom_components.jarvis.engine.types import Message, ToolSpec
from tests.engine.test_loop import TOOLS, make_host
from tests.scripted_llm import Reply, ScriptedLLMServer

CATALOGUE = [
    *TOOLS,
    ToolSpec("HassVacuumStart", "Starts a vacuum cleaner.", {"type": "object"}),
    ToolSpec("HassStartTimer", "Starts a timer.", {"type": "object"}),
]
SYSTEM = "You are Jarvis."
# A model Jarvis puts on the text protocol by its size, and one it does not.
MODELS = ["qwen2.5-coder:0.5b", "test-model"]


def _loop(client: LLMClient, model: str) -> ReplyLoop:
    return ReplyLoop(client, LoopSettings(model=model, tool_router=True))


def _parts(request: dict[str, Any]) -> tuple[str, Any, str]:
    """The system prompt, the tools and the last user message of a request."""
    body = request["json"]
    messages = body["messages"]
    said = [m["content"] for m in messages if m["role"] == "user"][-1]
    return messages[0]["content"], body.get("tools"), said


def _system(request: dict[str, Any]) -> str:
    return str(request["json"]["messages"][0]["content"])


@pytest.mark.parametrize("model", MODELS)
async def test_the_turns_context_goes_before_the_request_words(
    client: LLMClient, scripted_llm: ScriptedLLMServer, model: str
) -> None:
    scripted_llm.script(Reply(content="Sure."), Reply(content="Sure."))
    for request in ("turn on the kitchen light", "start the vacuum cleaner"):
        await _loop(client, model).run(
            system_prompt=SYSTEM,
            history=[Message("user", request)],
            tools=CATALOGUE,
            host=make_host()[0],
            context=[f"It is {len(request)}:00."],
        )
    (system, tools, light), (system_2, tools_2, vacuum) = map(
        _parts, scripted_llm.chat_requests
    )
    # The router's choice differs; what comes before it does not.
    assert tools != tools_2 or system != system_2
    assert os.path.commonprefix([system, system_2]).startswith(SYSTEM)  # noqa: RUF071
    assert light == f"{CONTEXT_HEADER}\nIt is 25:00.\n\nturn on the kitchen light"
    assert vacuum == f"{CONTEXT_HEADER}\nIt is 24:00.\n\nstart the vacuum cleaner"


@pytest.mark.parametrize("model", MODELS)
async def test_warm_up_reads_the_prefix_a_turn_starts_with(
    client: LLMClient, scripted_llm: ScriptedLLMServer, model: str
) -> None:
    satellite = "This device cannot start timers."
    loop = _loop(client, model)
    request = loop.warm_up_request(
        system_prompt=SYSTEM, tools=CATALOGUE, context=[satellite]
    )
    assert request.sampling.max_tokens == 1
    assert await loop.warm_up(request) is not None
    scripted_llm.script(Reply(content="Sure."), Reply(content="Done."))
    for request in ("start the vacuum cleaner", "make it cosy"):
        await loop.run(
            system_prompt=SYSTEM,
            history=[Message("user", request)],
            tools=CATALOGUE,
            host=make_host()[0],
            context=[satellite, "It is 10:00."],
        )
    (warm_up,) = scripted_llm.warm_ups
    body = warm_up["json"]
    assert 1 in (body.get("max_tokens"), (body.get("options") or {}).get("num_predict"))
    (system, tools, said), vacuum, cosy = map(
        _parts, [warm_up, *scripted_llm.chat_requests]
    )
    (turn_system, turn_tools, turn_said) = vacuum
    # The turn's tools start with the warm-up's core, listed after the system
    # prompt (text protocol) or as the first tools (native); a request that
    # names no tool is offered the warm-up's tools, whole.
    core = ["HassTurnOn", "GetLiveContext"]
    if not tools:
        shared = os.path.commonprefix([system, turn_system])  # noqa: RUF071
        assert all(f"- {name}:" in shared for name in core)
        assert "HassVacuumStart" in turn_system.removeprefix(shared)
    else:
        assert system == turn_system
        assert [tool["function"]["name"] for tool in tools] == [*core, TOOL_SEARCH]
        assert turn_tools[: len(core)] == tools[: len(core)]
    assert cosy[:2] == (system, tools)
    # Characters, not paths: the server reuses the common start of the prompt.
    common = os.path.commonprefix([said, turn_said])  # noqa: RUF071
    assert common == f"{CONTEXT_HEADER}\n{satellite}\n"


def test_cached_prompt_tokens_are_read_from_openai_usage() -> None:
    usage = _usage(
        {
            "prompt_tokens": 500,
            "completion_tokens": 8,
            "prompt_tokens_details": {"cached_tokens": 491},
        }
    )
    assert usage is not None
    assert (usage.prompt_tokens, usage.cached_tokens) == (500, 491)
    usage = _usage({"prompt_tokens": 500, "completion_tokens": 8})
    assert usage is not None
    assert usage.cached_tokens is None


async def test_a_tool_free_step_keeps_the_prompts_start(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """The answer step after a call lists the same tools as the call's step
    (text protocol): the server reads only what is new, and a call written
    in the answer step is not run."""
    scripted_llm.script(
        Reply(content='{"name": "GetLiveContext", "arguments": {}}'),
        Reply(content='{"name": "HassTurnOn", "arguments": {"name": "kitchen"}}'),
        Reply(content="The kitchen light is off."),
    )
    host, turned_on = make_host()
    result = await _loop(client, "qwen2.5-coder:0.5b").run(
        system_prompt=SYSTEM,
        history=[Message("user", "is the kitchen light on?")],
        tools=CATALOGUE,
        host=host,
    )
    (step, answer, repair) = [
        _parts(request)[0] for request in scripted_llm.chat_requests
    ]
    assert "Available tools:" in step
    assert answer == step == repair
    assert turned_on == []
    assert result.text == "The kitchen light is off."


async def test_small_talk_on_the_text_protocol_keeps_the_warm_ups_prompt(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """A turn offered no tools ("good night") lists the warm-up's tools in
    its prompt all the same (text protocol): the server's cache then still
    starts as the next command's prompt does, and no warm-up need run again.
    A call the model writes there is not run."""
    loop = _loop(client, "qwen2.5-coder:0.5b")
    assert await loop.warm_up(loop.warm_up_request(system_prompt=SYSTEM, tools=TOOLS))
    scripted_llm.script(
        Reply(content='{"name": "HassTurnOn", "arguments": {"name": "kitchen"}}'),
        Reply(content="Good night!"),
    )
    host, turned_on = make_host()

    result = await loop.run(
        system_prompt=SYSTEM,
        history=[Message("user", "good night")],
        tools=TOOLS,
        host=host,
    )

    (warm_up,) = scripted_llm.warm_ups
    small_talk = scripted_llm.chat_requests[0]
    assert _system(small_talk) == _system(warm_up)
    assert "HassTurnOn" in _system(warm_up)
    # Asked in words, at the end, where the cache does not reach.
    assert _parts(small_talk)[2] == in_language(PLAIN_REPLY_INSTRUCTION, None)
    assert not result.without_tools
    assert not turned_on
    assert result.text == "Good night!"
