"""The reply loop against a scripted LLM server, over both wire formats."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import replace
import json
from typing import Any

import pytest

from custom_components.jarvis.engine.cache import ConversationCache
from custom_components.jarvis.engine.grounding import Device
from custom_components.jarvis.engine.llm import create_client
from custom_components.jarvis.engine.llm.base import LLMClient
from custom_components.jarvis.engine.loop import (
    ANSWER_INSTRUCTION,
    Delta,
    LocalStepHost,
    LookUp,
    LoopSettings,
    ProtocolMemory,
    ReplyLoop,
    TextDelta,
)
from custom_components.jarvis.engine.loop.instructions import (
    PLAIN_REPLY_INSTRUCTION,
    in_language,
)
from custom_components.jarvis.engine.phrases import (
    DONE,
    LLM_UNAVAILABLE,
    NOT_UNDERSTOOD,
    TOO_SLOW,
    DidPhrase,
    FoundPhrase,
)
from custom_components.jarvis.engine.results import NO_MATCH, took_words_for_a_device
from custom_components.jarvis.engine.types import JsonObject, Message, ToolSpec
from scripts.llm_server import free_port
from tests.scripted_llm import Reply, ScriptedLLMServer

TOOLS = [
    ToolSpec(
        "HassTurnOn",
        "Turns on a device.",
        {
            "type": "object",
            "properties": {"name": {"type": "string"}, "area": {"type": "string"}},
            "required": ["name"],
        },
    ),
    ToolSpec("GetLiveContext", "Current states of devices.", {"type": "object"}),
]
USER = [Message("user", "turn on the kitchen light")]


class RecordingHost(LocalStepHost):
    """Runs tools, and records each step's text deltas separately."""

    def __init__(self, handlers: Mapping[str, Any]) -> None:
        super().__init__(handlers)
        self.text_deltas: list[str] = []

    async def run_step(self, deltas: AsyncIterator[Delta]) -> Mapping[str, JsonObject]:
        async def recorded() -> AsyncIterator[Delta]:
            async for delta in deltas:
                if isinstance(delta, TextDelta):
                    self.text_deltas.append(delta.text)
                yield delta

        return await super().run_step(recorded())


def make_host() -> tuple[RecordingHost, list[JsonObject]]:
    calls: list[JsonObject] = []

    async def turn_on(args: JsonObject) -> JsonObject:
        calls.append(args)
        return {"success": True, "name": args["name"]}

    async def live_context(args: JsonObject) -> JsonObject:
        return {"kitchen light": "off"}

    return RecordingHost({"HassTurnOn": turn_on, "GetLiveContext": live_context}), calls


def run_loop(
    client: LLMClient,
    host: LocalStepHost,
    *,
    protocols: ProtocolMemory | None = None,
    history: list[Message] | None = None,
    tools: list[ToolSpec] | None = None,
    language: str = "en",
    model: str = "test-model",
    cache: ConversationCache | None = None,
    look_first: Sequence[LookUp] = (),
    **settings: Any,
) -> Any:
    loop = ReplyLoop(
        client, LoopSettings(model=model, **settings), protocols, cache=cache
    )
    return loop.run(
        system_prompt="You are Jarvis.",
        history=history or USER,
        tools=TOOLS if tools is None else tools,
        host=host,
        language=language,
        look_first=look_first,
    )


def sent_tools(request: dict[str, Any]) -> Any:
    return request["json"].get("tools")


def system_text(request: dict[str, Any]) -> str:
    return str(request["json"]["messages"][0]["content"])


async def test_native_tool_call_then_answer(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "kitchen light"})]),
        Reply(content="The kitchen light is on."),
    )
    host, calls = make_host()
    result = await run_loop(client, host)

    assert calls == [{"name": "kitchen light"}]
    assert result.text == "The kitchen light is on."
    assert result.protocol == "native"
    assert result.llm_calls == 2
    assert result.ended == "done"
    first, second = scripted_llm.chat_requests
    assert [t["function"]["name"] for t in sent_tools(first)] == [
        "HassTurnOn",
        "GetLiveContext",
    ]
    tool_message = second["json"]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert json.loads(tool_message["content"]) == {
        "success": True,
        "name": "kitchen light",
    }


@pytest.mark.parametrize(
    "written_call",
    [
        '{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}',
        '```json\n{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}\n```',
        "To turn it on, use: ```json\n"
        '{"name": "functions.HassTurnOn", "arguments": {"name": "kitchen light"}}\n```',
        '<tool_call>{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}'
        "</tool_call>",
    ],
)
async def test_call_written_as_text_runs_and_switches_protocol(
    client: LLMClient, scripted_llm: ScriptedLLMServer, written_call: str
) -> None:
    protocols = ProtocolMemory()
    scripted_llm.script(
        Reply(content=written_call), Reply(content="Done, the light is on.")
    )
    host, calls = make_host()
    result = await run_loop(client, host, protocols=protocols)

    assert calls == [{"name": "kitchen light"}]
    assert result.text == "Done, the light is on."
    assert "use:" not in "".join(host.text_deltas)
    assert result.protocol == "text"
    # After a successful call a text-protocol model is asked only for the
    # answer, its tools listed as before so the server's cache keeps them.
    answer = scripted_llm.chat_requests[1]["json"]
    assert not answer.get("tools")
    assert "Available tools:" in answer["messages"][0]["content"]
    assert answer["messages"][-1]["content"] == in_language(ANSWER_INSTRUCTION, "en")
    # The agent stays on the text protocol for later conversations.
    scripted_llm.script(Reply(content="Hello."))
    await run_loop(client, make_host()[0], protocols=protocols)
    later = scripted_llm.chat_requests[2]
    assert not sent_tools(later)
    assert "Available tools:" in system_text(later)


def did_host(did: str) -> LocalStepHost:
    async def turn_on(args: JsonObject) -> JsonObject:
        return {"success": True, "did": did}

    return LocalStepHost({"HassTurnOn": turn_on})


@pytest.mark.parametrize(
    ("request_text", "language", "did", "reply"),
    [
        (
            "turn on the kitchen light",
            "en",
            "turned on Kitchen Light",
            "Done, I turned on Kitchen Light.",
        ),
        (
            "mach das Küchenlicht an",
            "de",
            "Küchenlicht eingeschaltet",
            "Erledigt, ich habe Küchenlicht eingeschaltet.",
        ),
    ],
)
async def test_a_command_done_is_said_from_what_its_action_did(  # noqa: PLR0917 - a case per language
    client: LLMClient,
    scripted_llm: ScriptedLLMServer,
    request_text: str,
    language: str,
    did: str,
    reply: str,
) -> None:
    """1.5B, asked to write the reply, claimed an action no tool had done."""
    scripted_llm.script(
        Reply(content='{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}')
    )
    result = await run_loop(
        client,
        did_host(DidPhrase(did)),
        model="qwen2.5-coder:0.5b",
        history=[Message("user", request_text)],
        language=language,
    )

    assert result.text == reply
    assert result.llm_calls == 1


def naming_host() -> LocalStepHost:
    """HassTurnOn that says it turned on the name it was given."""

    async def turn_on(args: JsonObject) -> JsonObject:
        return {"success": True, "did": DidPhrase(f"turned on {args['name']}")}

    return LocalStepHost({"HassTurnOn": turn_on})


def call_of(name: str) -> Reply:
    return Reply(content=f'{{"name": "HassTurnOn", "arguments": {{"name": "{name}"}}}}')


async def test_a_joined_command_left_undone_is_asked_alone(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B makes one call per reply: it turned on the kettle of "enciende el
    hervidor y luego prende el árbol de Navidad" and the turn ended there.
    Shown that call and told to do the rest, it made the same call again
    (two homes no session had written): the part left is asked in the
    request's place, without the turn's calls."""
    scripted_llm.script(call_of("Kettle"), call_of("Tree"))
    earlier = [Message("user", "hello"), Message("assistant", "Hello.")]
    result = await run_loop(
        client,
        naming_host(),
        model="qwen2.5-coder:0.5b",
        history=[
            *earlier,
            Message("user", "turn on the kettle and then switch on the tree"),
        ],
    )

    assert result.text == "Done, I turned on Kettle and turned on Tree."
    assert result.llm_calls == 2
    asked = scripted_llm.chat_requests[1]["json"]["messages"]
    assert [m["role"] for m in asked] == ["system", "user", "assistant", "user"]
    assert asked[1]["content"].endswith("hello")
    assert asked[-1]["content"].endswith("switch on the tree")
    assert "Kettle" not in json.dumps(asked[1:])


async def test_a_command_left_without_its_verb_is_named_after_the_calls(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """ "I'm going to bed: turn off the living room lights and the TV": "the
    TV", asked alone, had lost its verb, and 0.5B paused the TV. A part that
    says no way of its own is named after the turn's calls."""
    scripted_llm.script(call_of("Kettle"), call_of("Tree"))
    result = await run_loop(
        client,
        naming_host(),
        model="qwen2.5-coder:0.5b",
        history=[Message("user", "turn on the kettle and the tree")],
    )

    assert result.text == "Done, I turned on Kettle and turned on Tree."
    asked = scripted_llm.chat_requests[1]["json"]["messages"]
    assert "Kettle" in json.dumps(asked)
    assert asked[-1]["content"].endswith('with a tool call: "the tree"')


async def test_joined_commands_mixed_into_a_failing_call_are_asked_alone(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B wrote "apaga la luz del techo en la cocina y luego cierra la
    cortina en el jardín" as one call for "light" in "cooking", an awning,
    and repeated it (a home no session had written): each command is then
    asked alone."""

    async def turn_on(args: JsonObject) -> JsonObject:
        if args["name"] == "Both":
            return {"error": "MatchFailedError", "error_text": "No device 'Both'."}
        return {"success": True, "did": DidPhrase(f"turned on {args['name']}")}

    scripted_llm.script(call_of("Both"), call_of("Kettle"), call_of("Tree"))
    result = await run_loop(
        client,
        LocalStepHost({"HassTurnOn": turn_on}),
        model="qwen2.5-coder:0.5b",
        history=[Message("user", "turn on the kettle and then switch on the tree")],
    )

    assert result.text == "Done, I turned on Kettle and turned on Tree."
    asked = [r["json"]["messages"][-1]["content"] for r in scripted_llm.chat_requests]
    assert asked[1].endswith("turn on the kettle")
    assert asked[2].endswith("switch on the tree")


async def test_joined_commands_named_apart_from_what_was_done_end_in_one_call(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """No part names what the call did ("Wasserkocher" for "the kettle"):
    which one is left is not known, and the turn ends as before."""
    scripted_llm.script(call_of("Wasserkocher"))
    result = await run_loop(
        client,
        naming_host(),
        model="qwen2.5-coder:0.5b",
        history=[Message("user", "turn on the kettle and then the lamp")],
    )

    assert result.text == "Done, I turned on Wasserkocher."
    assert result.llm_calls == 1


@pytest.mark.parametrize(
    ("request_text", "did"),
    [
        # Something to tell: the model answers.
        (
            "turn on the kitchen light and tell me the time",
            DidPhrase("turned on Kitchen Light"),
        ),
        # A plain string (from an MCP server, say) cannot speak for Jarvis.
        ("turn on the kitchen light", "turned on Kitchen Light"),
    ],
)
async def test_the_model_writes_the_reply_otherwise(
    client: LLMClient, scripted_llm: ScriptedLLMServer, request_text: str, did: str
) -> None:
    scripted_llm.script(
        Reply(content='{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}'),
        Reply(content="It is on."),
    )
    result = await run_loop(
        client,
        did_host(did),
        model="qwen2.5-coder:0.5b",
        history=[Message("user", request_text)],
    )

    assert result.text == "It is on."
    assert result.llm_calls == 2


@pytest.mark.parametrize(
    ("request_text", "error", "reply", "llm_calls"),
    [
        # One command: the call made wrongly was put right; what was done is said.
        (
            "add milk to the shopping list",
            "wrong_tool",
            "Done, I added milk to Shopping List.",
            2,
        ),
        # Two commands: the failure may be the other one's, so the model says.
        ("add milk to the list and turn on the light", "wrong_tool", "Half done.", 3),
        # A device that failed is not put right by another call.
        ("add milk to the shopping list", "HomeAssistantError", "Half done.", 3),
    ],
)
async def test_a_failed_try_put_right_is_not_in_the_reply(  # noqa: PLR0917 - a case per kind of failure
    client: LLMClient,
    scripted_llm: ScriptedLLMServer,
    request_text: str,
    error: str,
    reply: str,
    llm_calls: int,
) -> None:
    async def wrong(args: JsonObject) -> JsonObject:
        return {"error": error, "error_text": "Nothing was done."}

    async def add(args: JsonObject) -> JsonObject:
        return {"success": True, "did": DidPhrase("added milk to Shopping List")}

    scripted_llm.script(
        Reply(content='{"name": "HassTurnOn", "arguments": {"name": "Shopping List"}}'),
        Reply(
            content='{"name": "HassListAddItem", '
            '"arguments": {"name": "Shopping List", "item": "milk"}}'
        ),
        Reply(content="Half done."),
    )
    add_item = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "item": {"type": "string"}},
        "required": ["item"],
    }
    result = await run_loop(
        client,
        LocalStepHost({"HassTurnOn": wrong, "HassListAddItem": add}),
        model="qwen2.5-coder:0.5b",
        history=[Message("user", request_text)],
        tools=[*TOOLS, ToolSpec("HassListAddItem", "Adds an item.", add_item)],
    )

    assert result.text == reply
    assert result.llm_calls == llm_calls


@pytest.mark.parametrize(
    ("failure", "reply", "language", "said"),
    [
        # 0.5B answered a refused call with 'The error "InvalidSlotInfo"
        # indicates that the volume step is not valid.'
        (
            {"error": "InvalidSlotInfo", "error_text": "Received invalid slot info"},
            'The error "InvalidSlotInfo" indicates a bad slot. Try again.',
            "en",
            "Sorry, that did not work. Try again.",
        ),
        # Its whole reply to a Spanish request was an error text, quoted.
        (
            {"error": "MatchFailedError", "error_text": "Nothing was done. No todo."},
            '"Nothing was done.',
            "es",
            "Lo siento, no ha funcionado.",
        ),
        # Both its sentences read out: one apology, not two.
        (
            {
                "error": "MatchFailedError",
                "error_text": "Nothing was done. No player called 'Lounge' can do that.",
            },
            "Nothing was done. No player called 'Lounge' can do that.",
            "en",
            "Sorry, that did not work.",
        ),
    ],
)
async def test_a_sentence_that_reads_an_error_out_is_an_apology(  # noqa: PLR0917 - a case per kind of error
    client: LLMClient,
    scripted_llm: ScriptedLLMServer,
    failure: JsonObject,
    reply: str,
    language: str,
    said: str,
) -> None:
    async def refused(args: JsonObject) -> JsonObject:
        return failure

    scripted_llm.script(
        Reply(content='{"name": "HassTurnOn", "arguments": {"name": "Thermostat"}}'),
        Reply(content=reply),
    )
    result = await run_loop(
        client,
        LocalStepHost({"HassTurnOn": refused}),
        model="qwen2.5-coder:0.5b",
        history=[Message("user", "raise it to 23")],
        language=language,
    )

    # A sentence left out may leave the space after the one before.
    assert result.text.rstrip() == said


async def test_http_400_on_tools_falls_back_to_text_protocol(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(reject_tools=True),
        Reply(content='{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}'),
        Reply(content="It is on."),
    )
    host, calls = make_host()
    result = await run_loop(client, host)

    assert calls == [{"name": "kitchen light"}]
    assert result.text == "It is on."
    assert result.protocol == "text"
    rejected, retried, _ = scripted_llm.chat_requests
    assert sent_tools(rejected)
    assert not sent_tools(retried)


async def test_unknown_tool_gets_error_listing_valid_names(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(tool_calls=[("TurnOnLight", {"name": "kitchen light"})]),
        Reply(content="Sorry, I used the wrong tool."),
    )
    host, calls = make_host()
    result = await run_loop(client, host)

    assert calls == []
    record = result.tool_calls[0]
    assert record.answered_by_engine
    assert record.result["error"] == "unknown_tool"
    assert "HassTurnOn, GetLiveContext" in record.result["error_text"]
    sent_back = scripted_llm.chat_requests[1]["json"]["messages"][-1]["content"]
    assert "unknown_tool" in sent_back


async def test_a_made_up_name_of_one_offered_tools_words_is_that_tool(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """1.5B called "HassMediaPlayerPause" (after HassMediaPlayerMute) for
    HassMediaPause."""
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOnLight", {"name": "kitchen light"})]),
        Reply(content="It is on."),
    )
    host, calls = make_host()
    result = await run_loop(client, host)

    assert calls == [{"name": "kitchen light"}]
    assert result.tool_calls[0].name == "HassTurnOn"


async def test_repeated_identical_call_is_refused(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    call = ("HassTurnOn", {"name": "kitchen light"})
    scripted_llm.script(
        Reply(tool_calls=[call]),
        Reply(tool_calls=[call]),
        Reply(content="The light is on."),
    )
    host, calls = make_host()
    result = await run_loop(client, host)

    assert len(calls) == 1
    assert result.tool_calls[1].result["error"] == "repeated_call"
    assert result.text == "The light is on."


async def test_invalid_arguments_are_not_run(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"area": "kitchen"})]),
        Reply(content="Which device?"),
    )
    host, calls = make_host()
    result = await run_loop(client, host)

    assert calls == []
    assert result.tool_calls[0].result["error"] == "invalid_arguments"
    assert "name" in result.tool_calls[0].result["error_text"]


@pytest.mark.parametrize(
    "junk",
    [
        "tool_calls: []",
        '{"name": "HassTurnOn", "argu',
        '{"tool_calls": []}',
        '{"name": "Say hello to my friend Anna", "arguments": {"name": "Anna"}}',
    ],
)
async def test_junk_is_never_shown_and_repaired(
    client: LLMClient, scripted_llm: ScriptedLLMServer, junk: str
) -> None:
    scripted_llm.script(Reply(content=junk), Reply(content="Hello, how can I help?"))
    host, _ = make_host()
    result = await run_loop(client, host)

    assert result.text == "Hello, how can I help?"
    assert "".join(host.text_deltas) == "Hello, how can I help?"
    assert result.ended == "not_understood"
    assert not sent_tools(scripted_llm.chat_requests[1])


async def test_junk_twice_gives_fixed_apology(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(content="tool_calls: []"), Reply(content="{}"))
    host, _ = make_host()
    result = await run_loop(client, host)

    assert result.text == NOT_UNDERSTOOD["en"]
    assert "{" not in host.text


# What 0.5B wrote for a to-do add: one value into a list, on and on.
def runaway_call(looped_in: str) -> str:
    return (
        '{"name": "HassTurnOn", "arguments": {"name": "kitchen light", '
        f'"{looped_in}": [' + '"Kitchen", ' * 60
    )


async def test_a_call_cut_off_in_an_argument_its_tool_takes_ends_in_an_apology(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """Nothing of the cut call runs (without the area it loops in, it could
    reach more), and no model is asked for words: asked, 0.5B said the item
    was on the list."""
    scripted_llm.script(
        Reply(content=runaway_call("area")),
        Reply(content="Grandma is on your list."),
    )
    host, calls = make_host()
    result = await run_loop(client, host)

    assert calls == []
    assert len(scripted_llm.chat_requests) == 1
    assert result.text == NOT_UNDERSTOOD["en"]
    assert result.ended == "not_understood"
    assert [call.outcome for call in result.calls] == ["cut"]


@pytest.mark.parametrize(
    "domain",
    [
        None,  # not taken
        # Optional, one value: 0.5B looped door classes into HassVacuumStart's.
        {"type": "array", "items": {"type": "string", "enum": ["light"]}},
    ],
)
async def test_a_call_cut_off_in_an_argument_that_cannot_narrow_it_runs(
    client: LLMClient, scripted_llm: ScriptedLLMServer, domain: JsonObject | None
) -> None:
    """What came before the loop is the call: the argument says no more than
    the tool's name."""
    turn_on = TOOLS[0]
    if domain is not None:
        properties = turn_on.parameters["properties"] | {"domain": domain}
        turn_on = replace(
            turn_on, parameters=turn_on.parameters | {"properties": properties}
        )
    scripted_llm.script(
        Reply(content=runaway_call("domain")),
        Reply(content="The kitchen light is on."),
    )
    host, calls = make_host()
    await run_loop(client, host, tools=[turn_on, *TOOLS[1:]])

    assert calls == [{"name": "kitchen light"}]


async def test_max_turns_ends_with_a_summary(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "lamp 1"})]),
        Reply(tool_calls=[("HassTurnOn", {"name": "lamp 2"})]),
        Reply(content="I turned on lamps 1 and 2."),
    )
    host, calls = make_host()
    result = await run_loop(client, host, max_turns=2)

    assert len(calls) == 2
    assert result.ended == "max_turns"
    assert result.protocol == "native"
    assert result.text == "I turned on lamps 1 and 2."
    summary_request = scripted_llm.chat_requests[2]
    assert not sent_tools(summary_request)
    assert "Stop using tools" in summary_request["json"]["messages"][-1]["content"]


async def test_timeout_apologises_and_cancels_the_request(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(content="I am thinking", hang=True))
    host, _ = make_host()
    result = await run_loop(client, host, call_timeout=0.5)

    assert result.ended == "llm_error"
    assert result.text.endswith(LLM_UNAVAILABLE["en"])
    for _ in range(50):
        if scripted_llm.disconnects:
            break
        await asyncio.sleep(0.02)
    assert scripted_llm.disconnects == 1


@pytest.mark.parametrize("backend", ["ollama", "openai"])
async def test_server_down_apologises_in_users_language(
    backend: str, socket_enabled: None
) -> None:
    client = create_client(
        backend, f"http://127.0.0.1:{free_port()}", connect_timeout=2
    )
    host, _ = make_host()
    try:
        result = await run_loop(client, host, language="de-DE")
    finally:
        await client.close()
    assert result.text == LLM_UNAVAILABLE["de"]
    assert result.ended == "llm_error"


async def test_think_blocks_never_reach_the_user(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(content="<think>The user greets me.</think>Good evening. How can I help?")
    )
    host, _ = make_host()
    result = await run_loop(client, host)

    assert result.text == "Good evening. How can I help?"
    assert "think" not in "".join(host.text_deltas)


async def test_prose_streams_sentence_by_sentence(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(content="The kitchen is warm. The hall is cool. The porch is cold.")
    )
    host, _ = make_host()
    result = await run_loop(client, host)

    assert len(host.text_deltas) >= 3
    assert "".join(host.text_deltas) == result.text
    assert result.text == "The kitchen is warm. The hall is cool. The porch is cold."


async def test_without_tools_no_tools_are_sent(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(content="Hello there."))
    host, _ = make_host()
    result = await run_loop(client, host, tools=[])

    assert result.text == "Hello there."
    assert not sent_tools(scripted_llm.chat_requests[0])


async def test_repeated_failures_stop_early_with_a_truthful_summary(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"area": "kitchen"})]),
        Reply(tool_calls=[("HassTurnOff", {"area": "kitchen"})]),
        Reply(content="I could not find that device."),
    )
    host, calls = make_host()
    result = await run_loop(client, host, max_turns=8)

    assert calls == []
    assert result.ended == "tool_failures"
    assert result.llm_calls == 3
    summary = scripted_llm.chat_requests[2]["json"]["messages"][-1]["content"]
    assert "truthfully" in summary
    assert "HassTurnOn: HassTurnOn: missing required argument 'name'" in summary


async def test_echoed_result_after_success_falls_back_to_done(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """What Qwen2.5-Coder 0.5B does: echo the tool result instead of answering."""
    echo = '{"response_type": "action_done", "data": {"success": ["light"]}}'
    scripted_llm.script(
        Reply(content='{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}'),
        Reply(content=echo),
        Reply(content=echo),
    )
    host, calls = make_host()
    result = await run_loop(client, host, language="es")

    assert calls == [{"name": "kitchen light"}]
    assert result.text == DONE["es"]
    assert host.text == DONE["es"]


async def test_garbage_from_the_server_apologises(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(raw="<html>502 Bad Gateway</html>"))
    host, _ = make_host()
    result = await run_loop(client, host)

    assert result.ended == "llm_error"
    assert host.text == LLM_UNAVAILABLE["en"]


async def test_a_line_over_the_cap_apologises_and_the_next_turn_works(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(content="Let me see.", long_line=1024 * 1024, hang=True),
        Reply(content="All fine."),
    )
    host, _ = make_host()
    result = await run_loop(client, host)

    assert result.ended == "llm_error"
    assert result.error == "A line of the reply was over 512 KiB."
    assert host.text.endswith(LLM_UNAVAILABLE["en"])

    host, _ = make_host()
    result = await run_loop(client, host)
    assert (result.ended, host.text) == ("done", "All fine.")


async def test_replies_are_cleaned_for_speech(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(content="**Done.** Details at https://example.com/x."))
    host, _ = make_host()
    result = await run_loop(client, host)

    assert result.text == "Done. Details at a link to example.com."


async def test_user_text_redacted_before_the_llm_when_asked(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(content="Noted."))
    host, _ = make_host()
    history = [Message("user", "email bob@example.com the code")]
    await run_loop(client, host, history=history, redact_prompts=True)

    sent = scripted_llm.chat_requests[0]["json"]["messages"][-1]["content"]
    assert sent == "email [email] the code"


@pytest.mark.parametrize(
    ("first_calls", "reason"),
    [
        (
            [("tool_search", {"query": "vacuum cleaner"}), ("HassVacuumStart", {})],
            "tool search",
        ),
        # The model knows the name ("apágala" after "turn on the bed light",
        # when the router offered HassTurnOn only): it costs one search.
        ([("HassVacuumStart", {})], "called by name"),
    ],
    ids=["tool_search", "by_name"],
)
async def test_router_narrows_tools_and_the_model_can_widen_them(
    client: LLMClient,
    scripted_llm: ScriptedLLMServer,
    first_calls: list[tuple[str, JsonObject]],
    reason: str,
) -> None:
    catalogue = [
        *TOOLS,
        ToolSpec("HassVacuumStart", "Starts a vacuum cleaner.", {"type": "object"}),
    ]
    scripted_llm.script(
        *(Reply(tool_calls=[call]) for call in first_calls),
        Reply(content="The vacuum is running."),
    )
    ran: list[str] = []

    async def vacuum(args: JsonObject) -> JsonObject:
        ran.append("vacuum")
        return {"success": True}

    host, _ = make_host()
    host._handlers = {**host._handlers, "HassVacuumStart": vacuum}
    result = await run_loop(
        client,
        host,
        tools=catalogue,
        tool_router=True,
        history=[Message("user", "turn on the kitchen light")],
    )

    first_tools = [
        t["function"]["name"] for t in sent_tools(scripted_llm.chat_requests[0])
    ]
    assert "HassVacuumStart" not in first_tools
    assert "tool_search" in first_tools
    assert ran == ["vacuum"]
    assert result.tool_reasons["HassVacuumStart"] == reason
    assert result.text == "The vacuum is running."


@pytest.mark.parametrize("model", ["test-model", "qwen2.5-coder:0.5b"])
async def test_look_first_fetches_states_before_the_model_answers(
    client: LLMClient, scripted_llm: ScriptedLLMServer, model: str
) -> None:
    scripted_llm.script(Reply(content="No, the kitchen light is off."))
    host, _ = make_host()
    result = await run_loop(
        client,
        host,
        model=model,
        history=[Message("user", "is the kitchen light on?")],
        look_first=[("GetLiveContext", {"name": "kitchen light"})],
    )

    (looked,) = result.tool_calls
    assert (looked.name, looked.arguments) == (
        "GetLiveContext",
        {"name": "kitchen light"},
    )
    # One model call, which already has the states.
    (request,) = scripted_llm.chat_requests
    assert "off" in json.dumps(request["json"]["messages"][1:])
    assert result.text == "No, the kitchen light is off."


async def test_after_looking_first_the_command_part_is_asked_for(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """1.5B answered "… and tell me the temperature" and left the command."""
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "kitchen light"})]),
        Reply(content="The kitchen light is on; it was off."),
    )
    host, calls = make_host()
    await run_loop(
        client,
        host,
        history=[Message("user", "turn on the kitchen light and tell me its state")],
        look_first=[("GetLiveContext", {"name": "kitchen light"})],
    )

    first = scripted_llm.chat_requests[0]["json"]["messages"]
    assert first[-1] == {
        "role": "user",
        "content": "The states asked about are above. Now do the rest of the "
        'request with a tool call: "turn on the kitchen light"',
    }
    assert calls == [{"name": "kitchen light"}]


async def test_a_command_with_what_was_looked_up_is_said_in_jarvis_words(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """Told to do "tell me the bedroom temperature" after it was looked up,
    0.5B dimmed the light again until the turn gave up."""

    async def light_set(args: JsonObject) -> JsonObject:
        return {"success": True, "did": DidPhrase("set Bed Light to 30%")}

    async def live_context(args: JsonObject) -> JsonObject:
        return {"success": True, "found": FoundPhrase("Bedroom Temperature: 19.5 °C.")}

    host = LocalStepHost({"HassTurnOn": light_set, "GetLiveContext": live_context})
    scripted_llm.script(call_of("Bed Light"))
    result = await run_loop(
        client,
        host,
        model="qwen2.5-coder:0.5b",
        history=[
            Message(
                "user", "dim the bed light to 30% and tell me the bedroom temperature"
            )
        ],
        look_first=[("GetLiveContext", {"name": "Bedroom Temperature"})],
    )

    assert result.text == (
        "Done, I set Bed Light to 30%. Bedroom Temperature: 19.5 °C."
    )
    assert result.llm_calls == 1


async def test_look_first_needs_its_tool_offered(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """No tools this turn (small talk, or memory has the answer): no lookup."""
    scripted_llm.script(Reply(content="Hello."))
    host, _ = make_host()
    result = await run_loop(
        client, host, tools=[], look_first=[("GetLiveContext", {"name": "kitchen"})]
    )

    assert result.tool_calls == []


async def test_loosely_namespaced_tool_names_resolve(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(tool_calls=[("assistant__HassTurnOn", {"name": "kitchen light"})]),
        Reply(content="On."),
    )
    host, calls = make_host()
    await run_loop(client, host)
    assert calls == [{"name": "kitchen light"}]


async def test_same_call_written_twice_runs_once_and_echoed_instruction_is_junk(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    call = '{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}'
    scripted_llm.script(
        Reply(content=f"{call}\n{call}\n{call}"),
        Reply(content="Now write your reply to the user: the light is on."),
        Reply(content="The kitchen light is on."),
    )
    host, calls = make_host()
    result = await run_loop(client, host)

    assert calls == [{"name": "kitchen light"}]
    assert result.text == "The kitchen light is on."


async def test_the_same_native_call_twice_in_one_step_runs_once(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    light = ("HassTurnOn", {"name": "kitchen light"})
    scripted_llm.script(
        Reply(tool_calls=[light, light, ("HassTurnOn", {"name": "hall light"})]),
        Reply(content="Both lights are on."),
    )
    host, calls = make_host()
    result = await run_loop(client, host)

    assert calls == [{"name": "kitchen light"}, {"name": "hall light"}]
    assert result.text == "Both lights are on."


async def test_router_always_offers_the_tools_it_is_told_to(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    confirm = ToolSpec(
        "confirm_action", "Runs the action the user confirmed.", {"type": "object"}
    )
    scripted_llm.script(
        Reply(tool_calls=[("confirm_action", {})]), Reply(content="Done.")
    )
    host, _ = make_host()
    ran: list[str] = []

    async def confirmed(args: JsonObject) -> JsonObject:
        ran.append("confirmed")
        return {"success": True}

    host._handlers = {**host._handlers, "confirm_action": confirmed}
    await run_loop(
        client,
        host,
        tools=[*TOOLS, confirm],
        tool_router=True,
        always_offer=("confirm_action",),
        history=[Message("user", "turn on the kitchen light"), Message("user", "yes")],
    )
    assert ran == ["confirmed"]


@pytest.mark.parametrize(
    "said", ["stop", "Never mind.", "vergiss es", "olvídalo", "cancel!"]
)
async def test_stop_ends_the_turn_without_the_llm(
    client: LLMClient, scripted_llm: ScriptedLLMServer, said: str
) -> None:
    host, _ = make_host()
    result = await run_loop(client, host, history=[*USER, Message("user", said)])

    assert result.ended == "stopped"
    assert result.llm_calls == 0
    assert not result.text.endswith("?")
    assert scripted_llm.chat_requests == []


async def test_nothing_before_a_stop_is_carried_over(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(content="Hello."))
    history = [
        Message("user", "turn on the kitchen light"),
        Message("assistant", "Which one?"),
        Message("user", "never mind"),
        Message("assistant", "Okay."),
        Message("user", "hello"),
    ]
    host, _ = make_host()
    await run_loop(client, host, history=history, tools=[])
    sent = scripted_llm.chat_requests[0]["json"]["messages"]
    assert [m["content"] for m in sent[1:]] == ["Okay.", "hello"]


async def test_each_llm_call_is_recorded(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(reject_tools=True),
        Reply(content='{"name": "HassTurnOn", "arguments": {"name": "kitchen light"}}'),
        Reply(content="It is on.", prompt_tokens=42, completion_tokens=7),
    )
    host, _ = make_host()
    result = await run_loop(client, host)

    rejected, step, answer = result.calls
    assert (rejected.purpose, rejected.outcome) == ("step", "tools_rejected")
    assert (step.purpose, step.protocol, step.outcome) == ("step", "text", "ok")
    assert step.tools_offered == len(TOOLS)
    assert (answer.purpose, answer.tools_offered) == ("answer", 0)
    assert (answer.prompt_tokens, answer.completion_tokens) == (42, 7)
    assert answer.first_token_s is not None
    assert answer.duration_s >= answer.first_token_s
    assert result.protocol_switch == "tools_rejected"
    assert result.error is None


async def test_the_reason_of_a_failure_is_kept(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(status=503, error="loading model"))
    host, _ = make_host()
    result = await run_loop(client, host)

    assert result.error is not None
    assert "503" in result.error
    assert result.calls[0].outcome == "llm_error"


async def test_small_talk_gets_no_tools_with_the_router(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(content="You're welcome."))
    host, _ = make_host()
    result = await run_loop(
        client, host, tool_router=True, history=[Message("user", "thank you!")]
    )
    assert result.text == "You're welcome."
    assert result.llm_calls == 1
    assert not sent_tools(scripted_llm.chat_requests[0])
    assert result.plan == ["reply: small talk"]


@pytest.mark.parametrize(
    ("request_text", "small_talk"),
    [("How are you today?", True), ("hello, the kitchen is too dark", False)],
)
async def test_small_talk_with_more_words_is_small_talk_where_they_point_nowhere(
    client: LLMClient,
    scripted_llm: ScriptedLLMServer,
    request_text: str,
    small_talk: bool,
) -> None:
    """Offered tools, 0.5B answered "How are you today?" with the living
    room's temperature. Words that point to the home still get tools."""
    scripted_llm.script(Reply(content="I'm well, thanks."))
    kitchen = Device(("Kitchen Light",), "light", "off", places=("Kitchen",))
    result = await ReplyLoop(client, LoopSettings(model="m", tool_router=True)).run(
        system_prompt="You are Jarvis.",
        history=[Message("user", request_text)],
        tools=TOOLS,
        host=make_host()[0],
        house=lambda done: [kitchen],
    )
    assert (result.plan == ["reply: small talk"]) is small_talk
    assert bool(sent_tools(scripted_llm.chat_requests[0])) is not small_talk


@pytest.mark.parametrize(
    "slow",
    [
        # Trickles tokens: each arrives well within the per-read timeout.
        Reply(content="The kitchen light is " + "very " * 200, piece_delay=0.05),
        # Ignores max_tokens and never stops.
        Reply(content="".join(f"word{n} " for n in range(20_000)), piece_delay=0.01),
        # Sends nothing at all.
        Reply(hang=True),
    ],
    ids=["trickle", "no_max_tokens", "hang"],
)
async def test_a_turn_ends_at_its_deadline_and_the_next_works(
    client: LLMClient, scripted_llm: ScriptedLLMServer, slow: Reply
) -> None:
    scripted_llm.script(slow, Reply(content="The light is on."))
    host, _ = make_host()
    started = asyncio.get_running_loop().time()
    result = await run_loop(client, host, turn_deadline=1.0)

    assert asyncio.get_running_loop().time() - started < 3
    assert result.ended == "deadline"
    # What was said stays; with nothing said, Jarvis apologises.
    assert result.text.strip()
    if slow.hang:
        assert result.text == TOO_SLOW["en"]
    # The request was cancelled: the server saw the client leave.
    await scripted_llm.wait_for_disconnects()

    host, _ = make_host()
    later = await run_loop(client, host)
    assert later.text == "The light is on."


async def test_a_call_of_no_known_tool_for_chit_chat_is_a_reply(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """A request with no tool's words is shown the core tools only in case:
    0.5B called "SayHello" for "say hello to my friend Anna" three times,
    then apologised. Jarvis asks it for words at once."""
    scripted_llm.script(
        Reply(content='{"name": "SayHello", "arguments": {"name": "Anna"}}'),
        Reply(content="Hello, Anna!"),
    )
    host, calls = make_host()
    result = await run_loop(
        client,
        host,
        model="qwen2.5-coder:0.5b",
        history=[Message("user", "say hello to my friend Anna")],
        tool_router=True,
    )
    assert result.text == "Hello, Anna!"
    assert result.tool_calls == []
    assert calls == []
    repair = scripted_llm.chat_requests[1]["json"]["messages"][-1]["content"]
    assert repair == in_language(PLAIN_REPLY_INSTRUCTION, "en")


@pytest.mark.parametrize(
    ("request_text", "name", "repaired"),
    [
        ("say hello to my friend Anna", "Anna", True),
        ("turn on Anna", "Anna", False),
        # The example call copied: no word of the user's taken for a device.
        ("delete all my automations", "...", False),
    ],
)
async def test_chit_chat_taken_for_a_device_the_home_lacks_is_a_reply(
    client: LLMClient,
    scripted_llm: ScriptedLLMServer,
    request_text: str,
    name: str,
    repaired: bool,
) -> None:
    """1.5B turned on "Anna" for "say hello to my friend Anna", then searched
    and retried until it gave up, 21 s later. With no tool's words in the
    request, a call that takes the user's words for a device the home lacks
    asks for words at once; a command ("turn on …") gets its next step with
    tools, and so does a copy of the example call: asked for words at once,
    0.5B answered "delete all my automations" with "The user has deleted all
    their automations."."""
    call = {"name": "HassTurnOn", "arguments": {"name": name}}
    scripted_llm.script(Reply(content=json.dumps(call)), Reply(content="Hello!"))

    async def no_such_device(args: JsonObject) -> JsonObject:
        return {"error": NO_MATCH, "error_text": f"No device named {args['name']}."}

    result = await run_loop(
        client,
        LocalStepHost({"HassTurnOn": no_such_device}),
        model="qwen2.5-coder:1.5b",
        history=[Message("user", request_text)],
        tool_router=True,
    )
    assert result.text == "Hello!"
    assert len(scripted_llm.chat_requests) == 2
    second = scripted_llm.chat_requests[1]["json"]
    instruction = second["messages"][-1]["content"]
    assert (instruction == in_language(PLAIN_REPLY_INSTRUCTION, "en")) is repaired
    assert f"No device named {name}" in str(second["messages"])


@pytest.mark.parametrize(
    ("language", "named"),
    [
        ("es", "in Spanish,"),
        ("de-CH", "in German,"),
        # Jarvis does not speak it, so it does not know its name either.
        ("sv", "in the user's language,"),
        (None, "in the user's language,"),
    ],
)
def test_the_answer_instruction_names_the_users_language(
    language: str | None, named: str
) -> None:
    """Small models answered a Spanish question in English when asked for
    "the user's language"."""
    assert named in in_language(ANSWER_INSTRUCTION, language)


@pytest.mark.parametrize(
    ("request_text", "language", "called", "spoken"),
    [
        (
            "lock the front door",
            "en",
            "front door",
            "Sorry, I don't know a device called front door.",
        ),
        (
            "schließ die front door ab",
            "de",
            "front door",
            "Entschuldigung, ich kenne kein Gerät namens front door.",
        ),
        # The name written as an entity id is the user's words too.
        (
            "lock the front door",
            "en",
            "front_door",
            "Sorry, I don't know a device called front door.",
        ),
        # No action said: no device was asked for either.
        ("front door", "en", "front door", NOT_UNDERSTOOD["en"]),
    ],
)
async def test_a_name_no_device_has_is_said_when_the_model_cannot_say_why(
    client: LLMClient,
    scripted_llm: ScriptedLLMServer,
    *,
    request_text: str,
    language: str,
    called: str,
    spoken: str,
) -> None:
    """0.5B tried HassTurnOn and HassTurnOff on "front door" (a lock not
    exposed), then wrote junk when asked what happened: Jarvis says which
    name it does not know, as HA's own matcher does."""
    on = {"name": "HassTurnOn", "arguments": {"name": called}}
    off = {"name": "HassTurnOff", "arguments": {"name": called}}
    scripted_llm.script(
        Reply(content=json.dumps(on)),
        Reply(content=json.dumps(off)),
        Reply(content="{}"),
    )

    async def no_such_device(args: JsonObject) -> JsonObject:
        return {"error": NO_MATCH, "error_text": f"No device named {args['name']}."}

    result = await run_loop(
        client,
        LocalStepHost({"HassTurnOn": no_such_device, "HassTurnOff": no_such_device}),
        model="qwen2.5-coder:0.5b",
        history=[Message("user", request_text)],
        tools=[*TOOLS, replace(TOOLS[0], name="HassTurnOff")],
        language=language,
    )
    assert result.text == spoken


def test_a_place_given_as_name_and_area_is_no_device_asked_for() -> None:
    """0.5B set the temperature of "Living Room" in the area Living Room,
    which has no thermostat, and Jarvis said it knew no device called
    Living Room."""
    no_match: JsonObject = {"error": NO_MATCH}
    request = "make it warmer in the living room"
    named: JsonObject = {"name": "Living Room", "temperature": 25}
    assert took_words_for_a_device(no_match, named, request)
    placed = named | {"area": "Living Room"}
    assert not took_words_for_a_device(no_match, placed, request)
    # A name said in plural is the user's word.
    curtain: JsonObject = {"name": "curtain"}
    assert took_words_for_a_device(no_match, curtain, "close the curtains")
