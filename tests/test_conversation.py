"""Jarvis as a conversation agent in a real Home Assistant, on a scripted LLM."""

from __future__ import annotations

import json
import time
from typing import Any
from unittest.mock import patch

from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.components.todo import (
    TodoItem,
    TodoItemStatus,
    TodoListEntity,
    TodoListEntityFeature,
)
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context, HomeAssistant
from homeassistant.helpers import chat_session, llm
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    setup_test_component_platform,
)
import voluptuous as vol

from custom_components.jarvis.config_flow import JarvisConfigFlow
from custom_components.jarvis.const import (
    CONF_API_KEY,
    CONF_BACKEND,
    CONF_GROUNDED_REPLIES,
    CONF_LOOK_FIRST,
    CONF_MAX_TOKENS,
    CONF_MEMORY,
    CONF_MODEL,
    CONF_PLANNER,
    CONF_PREFER_LOCAL,
    CONF_TEMPERATURE,
    CONF_TOOL_ROUTER,
    CONF_TOP_P,
    CONF_URL,
    DOMAIN,
    SUBENTRY_CONVERSATION,
)
from custom_components.jarvis.diagnostics import async_get_config_entry_diagnostics
from custom_components.jarvis.engine.phrases import LLM_UNAVAILABLE
from custom_components.jarvis.engine.types import ToolSpec
from custom_components.jarvis.entity import ToolNames, history_from_chat_log, tool_specs
from custom_components.jarvis.memory import async_get_memory
from tests.common import async_setup_demo_lights
from tests.engine.test_cache import planner_calls
from tests.engine.test_loop import system_text
from tests.scripted_llm import CONTENT_PIECE, Reply, ScriptedLLMServer

pytestmark = pytest.mark.usefixtures("ha_core")

KITCHEN = "light.kitchen_lights"


async def setup_jarvis(
    hass: HomeAssistant,
    server: ScriptedLLMServer,
    backend: str = "openai",
    *,
    prefer_local: bool = False,
    **agent: Any,
) -> tuple[MockConfigEntry, str]:
    """Demo home plus a Jarvis entry whose agent may use the Assist API.

    The fast path is off unless asked for, so the LLM loop is what's tested;
    `agent` adds to the agent's settings.
    """
    await async_setup_demo_lights(hass)
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": KITCHEN}, blocking=True
    )
    entry = MockConfigEntry(
        domain=DOMAIN,
        minor_version=JarvisConfigFlow.MINOR_VERSION,
        data={CONF_BACKEND: backend, CONF_URL: server.url, CONF_API_KEY: "sk-secret"},
        subentries_data=[
            ConfigSubentryData(
                data={
                    CONF_MODEL: "test-model",
                    CONF_LLM_HASS_API: ["assist"],
                    CONF_PREFER_LOCAL: prefer_local,
                    **agent,
                },
                subentry_type=SUBENTRY_CONVERSATION,
                title="Jarvis",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    entity_id = next(
        e for e in hass.states.async_entity_ids("conversation") if "jarvis" in e
    )
    return entry, entity_id


async def process(
    hass: HomeAssistant,
    agent_id: str,
    text: str,
    conversation_id: str | None = None,
    language: str | None = None,
) -> dict[str, Any]:
    """The `conversation.process` action, as automations call it."""
    data = {"text": text, "agent_id": agent_id}
    if language:
        data["language"] = language
    if conversation_id:
        data["conversation_id"] = conversation_id
    response = await hass.services.async_call(
        "conversation", "process", data, blocking=True, return_response=True
    )
    assert response is not None
    return dict(response)


def speech(response: dict[str, Any]) -> str:
    return str(response["response"]["speech"]["plain"]["speech"])


@pytest.mark.parametrize("backend", ["ollama", "openai"])
async def test_native_tool_call_turns_on_light(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, backend: str
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, backend)
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Kitchen Lights"})]),
        Reply(content="The kitchen lights are on."),
    )
    trace.async_clear_traces()
    response = await process(hass, agent, "turn on the kitchen lights")

    assert hass.states.get(KITCHEN).state == "on"
    # One command, one clean call: Jarvis says what it did, no second call.
    assert speech(response) == "Done, I turned on Kitchen Lights."
    (first,) = scripted_llm.chat_requests
    tools_sent = first["json"]["tools"]
    assert "HassTurnOn" in [tool["function"]["name"] for tool in tools_sent]
    events = trace.async_get_traces()[-1].as_dict()["events"]
    tool_events = [e for e in events if e["event_type"] == "tool_call"]
    assert tool_events[0]["data"]["tool_name"] == "HassTurnOn"


async def test_text_protocol_call_runs_and_prose_is_hidden(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(
        Reply(
            content="To turn them on, use: ```json\n"
            '{"name": "HassTurnOn", "arguments": {"name": "Kitchen Lights"}}\n```'
        ),
    )
    response = await process(hass, agent, "turn on the kitchen lights")

    assert hass.states.get(KITCHEN).state == "on"
    # What the action did, in Jarvis's words: no second call to write it.
    assert speech(response) == "Done, I turned on Kitchen Lights."
    (first,) = [request["json"] for request in scripted_llm.chat_requests]
    assert first["tools"]
    assert "Available tools:" not in first["messages"][0]["content"]


async def test_guard_errors_are_recorded_in_the_chat_log(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(
        Reply(tool_calls=[("LightsOn", {"name": "Kitchen Lights"})]),
        Reply(tool_calls=[("HassTurnOn", {"name": "Kitchen Lights"})]),
    )
    response = await process(hass, agent, "kitchen lights on")

    assert hass.states.get(KITCHEN).state == "on"
    # The wrong name was put right: the reply says what was done.
    assert speech(response) == "Done, I turned on Kitchen Lights."
    error_turn = scripted_llm.chat_requests[1]["json"]["messages"][-1]
    assert error_turn["role"] == "tool"
    assert "unknown_tool" in error_turn["content"]
    assert "HassTurnOn" in error_turn["content"]


async def test_follow_up_sees_earlier_tool_results(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    # No fresh lookup for the question: only the carried-over result.
    _, agent = await setup_jarvis(hass, scripted_llm, **{CONF_LOOK_FIRST: False})
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Kitchen Lights"})]),
        Reply(content="Yes, the kitchen lights."),
    )
    first = await process(hass, agent, "turn on the kitchen lights")
    await process(hass, agent, "which lights?", first["conversation_id"])

    history = scripted_llm.chat_requests[1]["json"]["messages"]
    assert [m["role"] for m in history][-5:] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert "Kitchen Lights" in history[-3]["content"]


async def test_llm_outage_apologises_and_next_turn_works(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(Reply(status=503, error="loading model"))
    response = await process(hass, agent, "turn on the kitchen lights")
    assert speech(response) == LLM_UNAVAILABLE["en"]
    assert hass.states.get(agent).state != "unavailable"

    scripted_llm.script(Reply(content="Hello again."))
    assert speech(await process(hass, agent, "hello")) == "Hello again."


async def test_server_gone_apologises_in_users_language(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    await scripted_llm.stop()
    result = await conversation.async_converse(
        hass, "Mach das Licht an", None, Context(), language="de", agent_id=agent
    )
    assert result.response.speech["plain"]["speech"] == LLM_UNAVAILABLE["de"]


async def streamed_turn(
    hass: HomeAssistant, agent: str, text: str
) -> tuple[list[tuple[float, dict[str, Any]]], conversation.ConversationResult]:
    """A turn as the Assist pipeline runs it, with a chat log delta listener:
    each delta with the monotonic time it reached the chat log, and the result."""
    deltas: list[tuple[float, dict[str, Any]]] = []
    with (
        chat_session.async_get_chat_session(hass) as session,
        conversation.async_get_chat_log(
            hass,
            session,
            chat_log_delta_listener=lambda _log, delta: deltas.append(
                (time.monotonic(), delta)
            ),
        ),
    ):
        result = await conversation.async_converse(
            hass, text, session.conversation_id, Context(), "en", agent_id=agent
        )
    return deltas, result


def text_pieces(deltas: list[tuple[float, dict[str, Any]]]) -> list[str]:
    return [delta["content"] for _, delta in deltas if delta.get("content")]


async def test_reply_streams_to_the_pipeline(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """With a delta listener (as the Assist pipeline sets) text arrives in pieces."""
    _, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(
        Reply(content="The kitchen is warm. The hall is cool. The porch is cold.")
    )
    deltas, _ = await streamed_turn(hass, agent, "how warm is it")

    pieces = text_pieces(deltas)
    assert len(pieces) >= 3
    assert (
        "".join(pieces) == "The kitchen is warm. The hall is cool. The porch is cold."
    )
    entity = hass.data["entity_components"]["conversation"].get_entity(agent)
    assert entity.supports_streaming


async def test_text_protocol_prose_streams_while_the_model_writes(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """A small model's reply reaches the chat log (and HA's streaming TTS, past
    60 characters) sentence by sentence, not once the model is done."""
    _, agent = await setup_jarvis(
        hass, scripted_llm, **{CONF_MODEL: "qwen2.5-coder:0.5b"}
    )
    reply = (
        "The kitchen lights are off and the hall is quiet tonight. "
        "The front door is locked and the garage door is closed. "
        "Tomorrow will be sunny with a light breeze."
    )
    piece_delay = 0.1
    scripted_llm.script(Reply(content=reply, piece_delay=piece_delay))
    asked = time.monotonic()
    deltas, result = await streamed_turn(hass, agent, "what is new at home?")

    # Offered tools on the text protocol: the reply could have been a call.
    assert "Available tools:" in system_text(scripted_llm.chat_requests[0])
    assert result.response.speech["plain"]["speech"] == reply
    assert "".join(text_pieces(deltas)) == reply
    # The server sends a 5-character piece every `piece_delay`: it cannot
    # finish before this, yet the first sentence is in the chat log by then.
    reply_ends_after = asked + len(reply) / CONTENT_PIECE * piece_delay
    first_text = next(t for t, delta in deltas if delta.get("content"))
    assert first_text < reply_ends_after - 1


@pytest.mark.parametrize(
    "written_call",
    [
        '{"name": "HassTurnOn", "arguments": {"name": "Kitchen Lights"}}',
        '```json\n{"name": "HassTurnOn", "arguments": {"name": "Kitchen Lights"}}\n```',
        'Sure:\n```json\n{"name": "HassTurnOn", '
        '"arguments": {"name": "Kitchen Lights"}}\n```',
    ],
)
async def test_text_protocol_calls_never_reach_the_chat_log(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, written_call: str
) -> None:
    _, agent = await setup_jarvis(
        hass, scripted_llm, **{CONF_MODEL: "qwen2.5-coder:0.5b"}
    )
    scripted_llm.script(Reply(content=written_call))
    deltas, _ = await streamed_turn(hass, agent, "turn on the kitchen lights")

    assert hass.states.get(KITCHEN).state == "on"
    assert "".join(text_pieces(deltas)) == "Done, I turned on Kitchen Lights."


async def test_diagnostics_redact_the_api_key(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    entry, _ = await setup_jarvis(hass, scripted_llm)
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    assert diagnostics["entry"]["data"][CONF_API_KEY] == "**REDACTED**"
    assert "sk-secret" not in str(diagnostics)
    assert diagnostics["backend"] == "openai"


async def test_fast_path_answers_plain_commands_without_the_llm(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    response = await process(hass, agent, "turn on the kitchen lights")

    assert hass.states.get(KITCHEN).state == "on"
    assert speech(response)
    assert scripted_llm.chat_requests == []


@pytest.mark.parametrize(
    ("text", "language", "said"),
    [
        ("Kitchen Lights è accesa?", "it", "spento"),
        ("is Kitchen Lights aan?", "nl", "uit"),
    ],
)
async def test_the_matchers_answers_say_states_in_the_users_language(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    text: str,
    language: str,
    said: str,
) -> None:
    """HA's templates read states out raw: "No, su estado es unlocked"."""
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    response = await process(hass, agent, text, language=language)

    assert said in speech(response), speech(response)
    assert "off" not in speech(response).split()
    assert scripted_llm.chat_requests == []


async def test_joined_commands_the_matcher_knows_run_without_the_llm(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": "light.bed_light"}, blocking=True
    )
    response = await process(
        hass, agent, "turn on the kitchen lights and then turn off the bed light"
    )

    assert hass.states.get(KITCHEN).state == "on"
    assert hass.states.get("light.bed_light").state == "off"
    assert speech(response).count(".") == 2, speech(response)
    assert scripted_llm.chat_requests == []


async def test_joined_commands_go_to_the_llm_unless_each_is_the_matchers(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """All or none: the piece the matcher knows does not run on its own."""
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    scripted_llm.script(Reply(content="I can't make sandwiches."))
    response = await process(
        hass, agent, "turn on the kitchen lights and then make me a sandwich"
    )

    assert speech(response) == "I can't make sandwiches."
    assert hass.states.get(KITCHEN).state == "off"
    assert len(scripted_llm.chat_requests) == 1


async def test_a_question_about_a_to_do_list_reads_its_items_first(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """The list's state is only a count: Jarvis reads the items out itself,
    with no LLM call."""
    _, agent = await setup_jarvis(hass, scripted_llm)
    shopping = TodoListEntity()
    shopping._attr_name = "Shopping List"
    shopping._attr_todo_items = [
        TodoItem(summary="oat milk", uid="1", status=TodoItemStatus.NEEDS_ACTION)
    ]
    setup_test_component_platform(hass, "todo", [shopping])
    assert await async_setup_component(hass, "todo", {"todo": {"platform": "test"}})
    await hass.async_block_till_done()
    response = await process(hass, agent, "what's on my shopping list?")
    assert speech(response) == "On Shopping List: oat milk."
    assert scripted_llm.chat_requests == []

    # A command after the question is the model's, with the items in front of it.
    scripted_llm.script(Reply(content="Added bread."))
    response = await process(
        hass, agent, "tell me what's on my shopping list and then add bread"
    )
    assert speech(response) == "Added bread."
    (request,) = scripted_llm.chat_requests
    assert "oat milk" in json.dumps(request["json"]["messages"])


@pytest.mark.parametrize(
    "text",
    [
        "apunta llamar a la abuela en mis tareas personales",
        # The item said before the clause that puts "it" on the list: 0.5B
        # wrote the English of it as turning on "Water Plants" (home 21).
        "recuérdame: llamar a la abuela, ponlo en mis tareas personales",
    ],
)
async def test_an_item_for_a_list_named_in_full_is_added_without_the_llm(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, text: str
) -> None:
    """HA's Spanish sentences miss "mis tareas personales" for the list
    Tareas personales, and 0.5B looped on it."""
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    tasks = TodoListEntity()
    tasks._attr_name = "Tareas personales"
    tasks._attr_supported_features = TodoListEntityFeature.CREATE_TODO_ITEM
    tasks._attr_todo_items = []

    async def create(item: TodoItem) -> None:
        tasks._attr_todo_items = [*(tasks.todo_items or []), item]

    tasks.async_create_todo_item = create  # type: ignore[method-assign]
    setup_test_component_platform(hass, "todo", [tasks])
    assert await async_setup_component(hass, "todo", {"todo": {"platform": "test"}})
    await hass.async_block_till_done()

    response = await hass.services.async_call(
        "conversation",
        "process",
        {
            "text": text,
            "agent_id": agent,
            "language": "es",
        },
        blocking=True,
        return_response=True,
    )

    assert response is not None
    assert speech(dict(response)) == (
        "Hecho, he añadido llamar a la abuela a Tareas personales."
    )
    assert [i.summary for i in tasks.todo_items or []] == ["llamar a la abuela"]
    assert scripted_llm.chat_requests == []


async def test_follow_up_after_fast_path_reaches_the_llm_with_that_turn(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    first = await process(hass, agent, "turn on the kitchen lights")
    scripted_llm.script(Reply(content="I made it a little warmer."))
    second = await process(
        hass, agent, "and make it a bit warmer", first["conversation_id"]
    )

    assert speech(second) == "I made it a little warmer."
    (request,) = scripted_llm.chat_requests
    messages = request["json"]["messages"][1:]
    # The local turn arrives whole: the intent call, its result, the answer.
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert messages[1]["tool_calls"][0]["function"]["name"] == "HassTurnOn"
    assert "Kitchen Lights" in messages[2]["content"]
    assert messages[3]["content"] == speech(first)
    assert messages[4]["content"] == "and make it a bit warmer"


async def test_history_leaves_out_calls_that_never_got_a_result(
    hass: HomeAssistant,
) -> None:
    chat_log = conversation.ChatLog(hass, "conversation-1")
    chat_log.content.extend(
        [
            conversation.UserContent("lights on"),
            conversation.AssistantContent(
                agent_id="conversation.jarvis",
                tool_calls=[llm.ToolInput("HassTurnOn", {"name": "x"}, external=True)],
            ),
            conversation.AssistantContent(
                agent_id="conversation.jarvis", content="On."
            ),
        ]
    )
    _, history = history_from_chat_log(chat_log, ToolNames(None))
    assert [(m.role, m.content, m.tool_calls) for m in history] == [
        ("user", "lights on", []),
        ("assistant", "On.", []),
    ]


class EchoAPI(llm.API):
    """A second LLM API, so HA merges and namespaces the agent's tools."""

    async def async_get_api_instance(
        self, llm_context: llm.LLMContext
    ) -> llm.APIInstance:
        return llm.APIInstance(self, "", llm_context, tools=[])


async def test_merged_apis_show_short_tool_names(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    llm.async_register_api(hass, EchoAPI(hass=hass, id="echo", name="Echo"))
    entry, agent = await setup_jarvis(hass, scripted_llm)
    subentry = next(iter(entry.subentries.values()))
    hass.config_entries.async_update_subentry(
        entry, subentry, data={**subentry.data, CONF_LLM_HASS_API: ["assist", "echo"]}
    )
    await hass.async_block_till_done()
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Kitchen Lights"})]),
        Reply(content="On."),
    )
    await process(hass, agent, "kitchen lights on")

    assert hass.states.get(KITCHEN).state == "on"
    names = [
        t["function"]["name"] for t in scripted_llm.chat_requests[0]["json"]["tools"]
    ]
    assert "HassTurnOn" in names
    assert not [name for name in names if "__" in name]


async def test_greetings_are_left_to_the_persona(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """HA's canned "Hello from Home Assistant." does not take the fast path."""
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    scripted_llm.script(Reply(content="Good evening. How may I help?"))
    response = await process(hass, agent, "hello")

    assert speech(response) == "Good evening. How may I help?"
    assert not scripted_llm.chat_requests[0]["json"].get("tools")


async def test_a_conversation_plans_a_repeated_request_once(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, **{CONF_PLANNER: True})
    plan = Reply(content='1. HassTurnOn: {"name": "Kitchen Lights"}\n2. reply')
    call = Reply(tool_calls=[("HassTurnOn", {"name": "Kitchen Lights"})])
    scripted_llm.script(plan, call, Reply(content="On."), call, Reply(content="On."))
    first = await process(hass, agent, "turn on the kitchen lights")
    await process(hass, agent, "turn on the kitchen lights", first["conversation_id"])
    assert planner_calls(scripted_llm) == 1

    # A new conversation starts with an empty cache.
    scripted_llm.script(plan, call, Reply(content="On."))
    await process(hass, agent, "turn on the kitchen lights")
    assert planner_calls(scripted_llm) == 2


async def test_a_small_model_runs_its_plan_without_the_chat_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(
        hass, scripted_llm, **{CONF_PLANNER: True, CONF_MODEL: "qwen2.5-coder:0.5b"}
    )
    scripted_llm.script(
        Reply(content='1. HassTurnOn: {"name": "Kitchen Lights"}\n2. reply'),
    )
    trace.async_clear_traces()
    response = await process(hass, agent, "turn on the kitchen lights")

    assert hass.states.get(KITCHEN).state == "on"
    # The planner's call only: the reply says what the action did.
    assert speech(response) == "Done, I turned on Kitchen Lights."
    assert len(scripted_llm.chat_requests) == 1
    events = trace.async_get_traces()[-1].as_dict()["events"]
    tool_events = [e for e in events if e["event_type"] == "tool_call"]
    assert [e["data"]["tool_name"] for e in tool_events] == ["HassTurnOn"]


@pytest.mark.parametrize("on", [True, False])
async def test_each_engine_switch_works_per_agent(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, on: bool
) -> None:
    _, agent = await setup_jarvis(
        hass,
        scripted_llm,
        **{CONF_PLANNER: on, CONF_TOOL_ROUTER: on, CONF_MEMORY: on},
    )
    if not on:
        scripted_llm.script(Reply(content="Noted."))
    await process(hass, agent, "remember that the cat is called Tom")
    # Memory: a plain "remember" is kept, without the LLM.
    facts = await async_get_memory(hass).recall("household", "cat")
    assert bool(facts) is on
    assert len(scripted_llm.chat_requests) == (0 if on else 1)

    scripted_llm.requests.clear()
    plan = Reply(content='1. HassTurnOn: {"name": "Kitchen Lights"}\n2. reply')
    scripted_llm.script(*([plan] if on else []), Reply(content="On."))
    await process(hass, agent, "turn on the kitchen lights")
    # Planner: a planning call first.
    assert planner_calls(scripted_llm) == (1 if on else 0)
    # Router: a short allow-list with the tool_search escape hatch.
    step = scripted_llm.chat_requests[-1]["json"]
    tools = [tool["function"]["name"] for tool in step["tools"]]
    assert ("tool_search" in tools) is on
    assert ("HassCancelAllTimers" in tools) is not on


def sampling_sent(body: dict[str, Any]) -> tuple[Any, Any, Any]:
    """Temperature, top-p and token cap of a chat request, in either wire format."""
    if "options" in body:  # Ollama's /api/chat
        options = body["options"]
        return options.get("temperature"), options.get("top_p"), options["num_predict"]
    return body.get("temperature"), body.get("top_p"), body["max_tokens"]


@pytest.mark.parametrize("backend", ["ollama", "openai"])
@pytest.mark.parametrize(
    ("sampling", "sent"),
    [
        # Unset: the server's own sampling, and the engine's cap.
        ({}, (None, None, 512)),
        (
            {CONF_TEMPERATURE: 0.3, CONF_TOP_P: 0.9, CONF_MAX_TOKENS: 200},
            (0.3, 0.9, 200),
        ),
    ],
)
async def test_agent_sampling_options_reach_the_server(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    backend: str,
    sampling: dict[str, Any],
    sent: tuple[Any, Any, Any],
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, backend, **sampling)
    scripted_llm.script(Reply(content="Why did the lamp blink? It had an idea."))
    await process(hass, agent, "tell me a joke")
    (request,) = scripted_llm.chat_requests
    assert sampling_sent(request["json"]) == sent


@pytest.mark.parametrize("said", ["yes", "no", "ja bitte"])
async def test_a_plain_yes_or_no_with_nothing_waiting_reaches_the_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, said: str
) -> None:
    """Only an action held for confirmation is answered without the LLM."""
    _, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(Reply(content="Yes to what?"))
    response = await process(hass, agent, said)

    assert speech(response) == "Yes to what?"
    assert len(scripted_llm.chat_requests) == 1


async def test_a_tool_that_raises_anything_is_a_tool_error_the_model_sees(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """A bug in a tool (here HA's own clock tool raising a ZeroDivisionError)
    reaches the model as a tool error, and the turn goes on."""
    _, agent = await setup_jarvis(hass, scripted_llm, **{CONF_LOOK_FIRST: False})
    scripted_llm.script(
        Reply(tool_calls=[("GetDateTime", {})]),
        Reply(content="I could not read the clock."),
    )
    with patch.object(llm.GetDateTimeTool, "async_call", side_effect=ZeroDivisionError):
        response = await process(hass, agent, "what time is it?")

    assert speech(response) == "I could not read the clock."
    messages = scripted_llm.chat_requests[-1]["json"]["messages"]
    (result,) = [m for m in messages if m["role"] == "tool"]
    assert "ZeroDivisionError" in result["content"]


@pytest.mark.parametrize(
    ("grounded", "said", "spoken"),
    [
        (True, "The front door is unlocked.", "Front Door is locked."),
        (False, "The front door is unlocked.", "The front door is unlocked."),
        (True, "I turned on the kitchen lights.", "I did not change Kitchen Lights."),
    ],
)
async def test_a_false_claim_about_the_home_is_put_right(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    grounded: bool,
    said: str,
    spoken: str,
) -> None:
    _, agent = await setup_jarvis(
        hass, scripted_llm, **{CONF_GROUNDED_REPLIES: grounded}
    )
    hass.states.async_set("lock.front_door", "locked", {"friendly_name": "Front Door"})
    async_expose_entity(hass, "conversation", "lock.front_door", True)
    scripted_llm.script(Reply(content=said))
    response = await process(hass, agent, "what about the front door?")

    assert speech(response) == spoken


def test_tool_specs_are_the_same_whatever_order_ha_lists_them_in(
    hass: HomeAssistant,
) -> None:
    """HA's tools came in the order its integrations loaded, and some allowed
    values in a set's order: the prompt changed from one start to the next."""

    class Choice(llm.Tool):
        def __init__(self, name: str, values: list[str]) -> None:
            self.name = name
            self.description = name
            self.parameters = vol.Schema({vol.Optional("step"): vol.In(values)})

        async def async_call(
            self, hass: HomeAssistant, tool_input: llm.ToolInput, ctx: llm.LLMContext
        ) -> dict[str, Any]:
            return {}

    def specs(tools: list[llm.Tool]) -> list[ToolSpec]:
        api = llm.APIInstance(
            api=llm.AssistAPI(hass),
            api_prompt="",
            llm_context=llm.LLMContext("test", None, None, None, None),
            tools=tools,
        )
        return tool_specs(hass, api, ToolNames(api))

    one = specs([Choice("B", ["up", "down"]), Choice("A", ["x"])])
    other = specs([Choice("A", ["x"]), Choice("B", ["down", "up"])])

    assert one == other
    assert [spec.name for spec in one] == ["A", "B"]
