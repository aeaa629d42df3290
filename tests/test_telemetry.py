"""Per-turn telemetry, diagnostic sensors and the LLM server's health, in real HA."""

from __future__ import annotations

from datetime import timedelta
import logging
from typing import Any

from freezegun.api import FrozenDateTimeFactory
from homeassistant.components.conversation import trace
from homeassistant.config_entries import SOURCE_REAUTH
from homeassistant.const import (
    CONF_LLM_HASS_API,
    STATE_OFF,
    STATE_ON,
    EntityCategory,
)
from homeassistant.core import HomeAssistant, State
from homeassistant.helpers import entity_registry as er, issue_registry as ir
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_fire_time_changed,
    mock_restore_cache_with_extra_data,
)

from custom_components.jarvis.const import (
    CONF_MODEL,
    CONF_NUM_CTX,
    CONF_PLANNER,
    DOMAIN,
)
from custom_components.jarvis.coordinator import TURN_FAILED
from custom_components.jarvis.diagnostics import async_get_config_entry_diagnostics
from custom_components.jarvis.engine.phrases import LLM_UNAVAILABLE
from custom_components.jarvis.engine.redact import redact_data
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.test_conversation import KITCHEN, process, setup_jarvis, speech

pytestmark = pytest.mark.usefixtures("ha_core")

TURN_ON = Reply(tool_calls=[("HassTurnOn", {"name": "Kitchen Lights"})])


def jarvis_detail() -> dict[str, Any]:
    """Jarvis's record of the turn in the last conversation trace."""
    events = trace.async_get_traces()[-1].as_dict()["events"]
    (detail,) = [
        e["data"]
        for e in events
        if e["event_type"] == "agent_detail" and "path" in e["data"]
    ]
    return dict(detail)


def entity_id(hass: HomeAssistant, platform: str, unique_id: str) -> str:
    found = er.async_get(hass).async_get_entity_id(platform, DOMAIN, unique_id)
    assert found is not None
    return found


def agent_sensor(hass: HomeAssistant, entry: MockConfigEntry, key: str) -> str:
    (subentry_id,) = entry.subentries
    return entity_id(hass, "sensor", f"{subentry_id}_{key}")


def server_sensor(hass: HomeAssistant, entry: MockConfigEntry) -> str:
    return entity_id(hass, "binary_sensor", f"{entry.entry_id}_server_problem")


def server_issue(hass: HomeAssistant, entry: MockConfigEntry) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(
        DOMAIN, f"server_unreachable_{entry.entry_id}"
    )


async def check_server(hass: HomeAssistant, seconds: float) -> None:
    """Let the periodic server check run, as if `seconds` had passed."""
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=seconds))
    await hass.async_block_till_done(wait_background_tasks=True)


async def test_loop_turn_with_tool_calls_is_traced(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(
        # An unknown tool the engine answers itself, with arguments to redact.
        Reply(tool_calls=[("LightsOn", {"name": "bob@example.com", "code": 1234})]),
        TURN_ON,
    )
    trace.async_clear_traces()
    await process(hass, agent, "turn on the kitchen lights")

    detail = jarvis_detail()
    assert detail["path"] == "loop"
    assert detail["protocol"] == "native"
    # The unknown tool was put right: Jarvis says what was done, no third call.
    assert detail["llm_calls"] == 2
    assert (detail["prompt_tokens"], detail["completion_tokens"]) == (20, 10)
    assert detail["ended"] == "done"
    assert detail["duration"] > 0
    assert "HassTurnOn" in detail["tools_offered"]
    assert detail["tool_calls"] == [
        {
            "name": "LightsOn",
            "arguments": {"name": "[email]", "code": "[secret]"},
            "success": False,
            "answered_by_engine": True,
            "error": "unknown_tool",
        },
        {
            "name": "HassTurnOn",
            "arguments": {"name": "Kitchen Lights"},
            "success": True,
            "answered_by_engine": False,
        },
    ]
    calls = detail["llm_call_details"]
    assert [(c["purpose"], c["protocol"], c["outcome"]) for c in calls] == [
        ("step", "native", "ok"),
        ("step", "native", "ok"),
    ]
    assert all(c["first_token_s"] is not None for c in calls)
    # To the millisecond: a duration's float noise had held a redacted PIN.
    assert all(
        round(c[key], 3) == c[key]
        for c in calls
        for key in ("first_token_s", "duration_s")
    )
    assert detail["context"] == {"shortened_tool_results": 0, "summarised_turns": 0}


async def test_fast_path_turn_is_traced(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm, prefer_local=True)
    trace.async_clear_traces()
    await process(hass, agent, "turn on the kitchen lights")

    detail = jarvis_detail()
    assert detail["path"] == "fast_path"
    assert detail["protocol"] is None
    assert detail["llm_calls"] == 0
    assert detail["ended"] == "done"
    assert [(c["name"], c["success"]) for c in detail["tool_calls"]] == [
        ("HassTurnOn", True)
    ]


async def test_text_protocol_turn_is_traced(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(
        Reply(
            content='{"name": "HassTurnOn", "arguments": {"name": "Kitchen Lights"}}'
        ),
        Reply(content="Done, the kitchen lights are on."),
    )
    trace.async_clear_traces()
    await process(hass, agent, "turn on the kitchen lights")

    assert hass.states.get(KITCHEN).state == STATE_ON
    detail = jarvis_detail()
    assert detail["protocol"] == "text"
    assert [(c["name"], c["success"]) for c in detail["tool_calls"]] == [
        ("HassTurnOn", True)
    ]


async def test_planned_calls_and_cache_hits_are_recorded(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    # A small model runs the plan's steps without the chat model; the same
    # request again in the conversation takes the plan from its cache.
    entry, agent = await setup_jarvis(
        hass, scripted_llm, **{CONF_PLANNER: True, CONF_MODEL: "qwen2.5-coder:0.5b"}
    )
    scripted_llm.script(
        Reply(content='1. HassTurnOn: {"name": "Kitchen Lights"}\n2. reply'),
        Reply(content="The kitchen lights are on."),
        Reply(content="They are on again."),
    )
    trace.async_clear_traces()
    first = await process(hass, agent, "turn on the kitchen lights")
    first_detail = jarvis_detail()
    await process(hass, agent, "turn on the kitchen lights", first["conversation_id"])
    second_detail = jarvis_detail()

    assert (first_detail["planned_calls"], first_detail["cache_hits"]) == (1, [])
    assert second_detail["planned_calls"] == 1
    assert "plan" in second_detail["cache_hits"]
    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    (subentry_id,) = entry.subentries
    turns = diagnostics["recent_turns"][subentry_id]
    assert [(t["planned_calls"], "plan" in t["cache_hits"]) for t in turns] == [
        (1, False),
        (1, True),
    ]


async def test_memory_command_is_traced_without_a_protocol(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    _, agent = await setup_jarvis(hass, scripted_llm)
    trace.async_clear_traces()
    await process(hass, agent, "remember that the spare key is under the mat")

    detail = jarvis_detail()
    assert (detail["path"], detail["protocol"], detail["llm_calls"]) == (
        "memory",
        None,
        0,
    )
    assert scripted_llm.chat_requests == []


async def test_long_conversation_is_summarised_and_traced(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """Past the context, the oldest turns (all of them, however many) fold
    into a summary that the model gets and the trace reports."""
    entry, agent = await setup_jarvis(hass, scripted_llm)
    subentry = next(iter(entry.subentries.values()))
    hass.config_entries.async_update_subentry(
        entry,
        subentry,
        data={**subentry.data, CONF_LLM_HASS_API: [], CONF_NUM_CTX: 2048},
    )
    await hass.async_block_till_done()
    filler = "and tell me about the weather tomorrow " * 16
    said = ["hello", "my dog is called Biscuit", *(f"{n} {filler}" for n in range(18))]
    conversation_id = None
    for text in said:
        scripted_llm.script(Reply(content="Noted."))
        response = await process(hass, agent, text, conversation_id)
        conversation_id = response["conversation_id"]

    assert jarvis_detail()["context"]["summarised_turns"] > 10
    summary = scripted_llm.chat_requests[-1]["json"]["messages"][1]["content"]
    assert "my dog is called Biscuit" in summary


async def test_server_error_is_traced_and_raises_the_problem(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    entry, agent = await setup_jarvis(hass, scripted_llm)
    problem = server_sensor(hass, entry)
    assert hass.states.get(problem).state == STATE_OFF
    scripted_llm.script(Reply(status=503, error="loading model"))
    trace.async_clear_traces()
    response = await process(hass, agent, "turn on the kitchen lights")

    assert speech(response) == LLM_UNAVAILABLE["en"]
    detail = jarvis_detail()
    assert (detail["path"], detail["ended"], detail["llm_calls"]) == (
        "loop",
        "llm_error",
        1,
    )
    assert "503" in detail["error"]
    assert hass.states.get(problem).state == STATE_ON
    issue = server_issue(hass, entry)
    assert issue is not None
    assert issue.translation_placeholders is not None
    assert issue.translation_placeholders["error"] == TURN_FAILED

    # A turn the model answers clears it without waiting for the next check.
    scripted_llm.script(Reply(content="Hello again."))
    await process(hass, agent, "hello")
    assert hass.states.get(problem).state == STATE_OFF
    assert server_issue(hass, entry) is None


async def test_unreachable_server_raises_a_repair_until_it_answers(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    entry, _ = await setup_jarvis(hass, scripted_llm)
    problem = server_sensor(hass, entry)
    registry_entry = er.async_get(hass).async_get(problem)
    assert registry_entry is not None
    assert registry_entry.entity_category is EntityCategory.DIAGNOSTIC
    port = int(scripted_llm.url.rsplit(":", 1)[1])
    await scripted_llm.stop()

    await check_server(hass, 61)
    assert hass.states.get(problem).state == STATE_ON
    issue = server_issue(hass, entry)
    assert issue is not None
    assert issue.severity is ir.IssueSeverity.ERROR
    assert not issue.is_fixable
    assert issue.translation_key == "server_unreachable"
    assert issue.translation_placeholders is not None
    assert issue.translation_placeholders["url"] == scripted_llm.url

    revived = ScriptedLLMServer()
    await revived.start(port=port)
    try:
        await check_server(hass, 122)
        assert hass.states.get(problem).state == STATE_OFF
        assert server_issue(hass, entry) is None
    finally:
        await revived.stop()


async def test_server_without_models_is_a_problem(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    entry, _ = await setup_jarvis(hass, scripted_llm)
    scripted_llm.models = []
    await check_server(hass, 61)

    assert hass.states.get(server_sensor(hass, entry)).state == STATE_ON
    assert server_issue(hass, entry) is not None


async def test_refused_key_starts_reauthentication(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    entry, _ = await setup_jarvis(hass, scripted_llm)
    scripted_llm.api_key = "sk-rotated"
    await check_server(hass, 61)

    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == [SOURCE_REAUTH]
    assert server_issue(hass, entry) is None


async def test_unload_removes_the_repair(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    entry, _ = await setup_jarvis(hass, scripted_llm)
    await scripted_llm.stop()
    await check_server(hass, 61)
    assert server_issue(hass, entry) is not None

    assert await hass.config_entries.async_unload(entry.entry_id)
    assert server_issue(hass, entry) is None


async def test_server_checks_stop_with_home_assistant(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Stopping does not unload entries; the check must not outlive the shared
    HTTP session, which closes as Home Assistant stops."""
    await setup_jarvis(hass, scripted_llm)
    await hass.async_stop()
    checks = len(scripted_llm.requests)
    caplog.clear()

    await check_server(hass, 61)

    assert len(scripted_llm.requests) == checks
    assert [
        r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING
    ] == []


async def test_sensors_update_after_each_turn(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    entry, agent = await setup_jarvis(hass, scripted_llm)
    registry = er.async_get(hass)
    noisy = [
        agent_sensor(hass, entry, key) for key in ("last_llm_calls", "last_tokens")
    ]
    for sensor in noisy:
        registry_entry = registry.async_get(sensor)
        assert registry_entry is not None
        assert registry_entry.disabled_by is er.RegistryEntryDisabler.INTEGRATION
        assert registry_entry.entity_category is EntityCategory.DIAGNOSTIC
        registry.async_update_entity(sensor, disabled_by=None)
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    response_time = agent_sensor(hass, entry, "last_response_time")
    turns_today = agent_sensor(hass, entry, "turns_today")
    assert hass.states.get(turns_today).state == "0"

    scripted_llm.script(Reply(content="Hello."))
    await process(hass, agent, "hello")
    assert hass.states.get(noisy[0]).state == "1"
    assert hass.states.get(turns_today).state == "1"

    # Two commands: after the call, the model gets another step.
    scripted_llm.script(TURN_ON, Reply(content="On."))
    await process(hass, agent, "turn on the kitchen lights and the fan")

    assert float(hass.states.get(response_time).state) > 0
    assert hass.states.get(response_time).attributes["unit_of_measurement"] == "s"
    assert hass.states.get(noisy[0]).state == "2"
    assert hass.states.get(noisy[1]).state == "30"
    assert hass.states.get(turns_today).state == "2"


async def test_turns_today_resets_at_midnight(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, freezer: FrozenDateTimeFactory
) -> None:
    entry, agent = await setup_jarvis(hass, scripted_llm)
    turns_today = agent_sensor(hass, entry, "turns_today")
    await process(hass, agent, "hello")
    assert hass.states.get(turns_today).state == "1"

    midnight = dt_util.start_of_local_day() + timedelta(days=1)
    freezer.move_to(midnight)
    async_fire_time_changed(hass, midnight)
    await hass.async_block_till_done(wait_background_tasks=True)
    assert hass.states.get(turns_today).state == "0"


@pytest.mark.parametrize(("days_ago", "turns"), [(0, "7"), (1, "0")])
async def test_sensors_come_back_after_a_restart(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, days_ago: int, turns: str
) -> None:
    last_turn = dt_util.utcnow() - timedelta(days=days_ago)
    mock_restore_cache_with_extra_data(
        hass,
        [
            (
                State("sensor.jarvis_last_response_time", "2.5"),
                {"native_value": 2.5, "native_unit_of_measurement": "s"},
            ),
            (
                State("sensor.jarvis_turns_today", "7", last_updated=last_turn),
                {"native_value": 7, "native_unit_of_measurement": None},
            ),
        ],
    )
    entry, _ = await setup_jarvis(hass, scripted_llm)

    assert hass.states.get(agent_sensor(hass, entry, "last_response_time")).state == (
        "2.5"
    )
    # Yesterday's turns do not count today.
    assert hass.states.get(agent_sensor(hass, entry, "turns_today")).state == turns


async def test_diagnostics_show_recent_turns_redacted(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="custom_components.jarvis")
    entry, agent = await setup_jarvis(hass, scripted_llm)
    scripted_llm.script(Reply(content="I cannot send mail to bob@example.com."))
    await process(hass, agent, "send a mail to bob@example.com")

    diagnostics = await async_get_config_entry_diagnostics(hass, entry)
    (subentry_id,) = entry.subentries
    (turn,) = diagnostics["recent_turns"][subentry_id]
    assert turn["user_text"] == "send a mail to [email]"
    assert turn["reply"] == "I cannot send mail to [email]."
    assert (turn["agent"], turn["path"], turn["ended"]) == ("Jarvis", "loop", "done")
    assert diagnostics["server"] == {"reachable": True, "error": None}
    assert "bob@example.com" not in str(diagnostics)
    assert "sk-secret" not in str(diagnostics)

    jarvis_logs = [
        record
        for record in caplog.records
        if record.name.startswith("custom_components.jarvis")
    ]
    assert "bob@example.com" not in " ".join(r.getMessage() for r in jarvis_logs)
    (summary,) = [r.getMessage() for r in jarvis_logs if r.levelno == logging.INFO]
    assert summary.startswith("Jarvis answered by loop in ")
    assert summary.endswith("(done): 1 LLM calls, 15 tokens, tools: none")


def test_tool_arguments_keep_their_shape_when_redacted() -> None:
    assert redact_data(
        {"text": "token=abc123", "pin": "0000", "items": ["call +31 6 1234 5678"]}
    ) == {"text": "token=[secret]", "pin": "[secret]", "items": ["call [phone]"]}


def test_a_secret_is_the_keys_last_word_not_a_measure_of_one() -> None:
    record = {
        "access_token": "abc",
        "alarm_code": 1234,
        "first_token_s": 0.42,
        "cached_tokens": 400,
    }
    assert redact_data(record) == {
        "access_token": "[secret]",
        "alarm_code": "[secret]",
        "first_token_s": 0.42,
        "cached_tokens": 400,
    }
