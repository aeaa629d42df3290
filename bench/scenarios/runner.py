"""Runs scenarios in fresh Home Assistant test instances and judges each turn.

Each scenario gets its own instance (about half a second to build, far less
than one LLM call), so no state, memory or chat history leaks between them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
import logging
from pathlib import Path
import tempfile
import time
from typing import Any

from homeassistant import loader
from homeassistant.components import conversation
from homeassistant.components.conversation import trace
from homeassistant.components.intent import TIMER_DATA
from homeassistant.core import Context, HomeAssistant, State
from homeassistant.helpers import frame
from pytest_homeassistant_custom_component.common import (
    async_test_home_assistant,
    mock_storage,
)

# Before anything asks HA's loader: this tree's custom_components, not the test
# package's (docs/DEVELOPMENT.md, test-rig gotcha).
import custom_components.jarvis  # noqa: F401
from custom_components.jarvis.config_flow import default_agent_data
from custom_components.jarvis.const import ENGINE_FEATURE_DEFAULTS, ENGINE_FEATURES
from tests.common import async_add_jarvis_agent

from .home import EXPOSED, async_build_home
from .model import Scenario, Turn, reply_misses, state_problems
from .proxy import LLMCall, RecordingProxy

_LOGGER = logging.getLogger(__name__)

# Configuration -> engine switches; None is HA's own intent agent (no LLM).
# "full" has every switch on, "plain" none (a loop like HA's own Ollama agent),
# "default" what a new agent gets, "no-<switch>" all but one: what that one adds.
CONFIGS: dict[str, Mapping[str, bool] | None] = {
    "full": dict.fromkeys(ENGINE_FEATURES, True),
    "default": ENGINE_FEATURE_DEFAULTS,
    "plain": dict.fromkeys(ENGINE_FEATURES, False),
    "intent": None,
    **{
        f"no-{feature}": dict.fromkeys(ENGINE_FEATURES, True) | {feature: False}
        for feature in ENGINE_FEATURES
    },
}


@dataclass(slots=True)
class TurnOutcome:
    """What one turn did and whether it met its expectations."""

    text: str
    reply: str = ""
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens llama.cpp reused from its cache
    tool_calls: list[str] = field(default_factory=list)
    # Per LLM call after the scenario's first: the share of the request that
    # repeats the previous request's start (what a prompt cache can reuse).
    prefix_reuse: list[float] = field(default_factory=list)
    # Per LLM call: prompt tokens the server evaluated (not from its cache).
    evaluated_tokens: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(slots=True)
class ScenarioOutcome:
    """One scenario under one model and configuration."""

    scenario: str
    category: str
    language: str
    model: str
    config: str
    turns: list[TurnOutcome] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and all(turn.ok for turn in self.turns)


@dataclass(frozen=True, slots=True)
class LLMEndpoint:
    """The proxy in front of a llama.cpp server, and the model id it serves."""

    proxy: RecordingProxy
    alias: str


def agent_data(alias: str, features: Mapping[str, bool]) -> dict[str, Any]:
    """The agent's settings: the defaults, then the configuration's engine switches."""
    return default_agent_data(alias) | dict(features)


@asynccontextmanager
async def home_assistant() -> AsyncIterator[HomeAssistant]:
    """A fresh test instance with in-memory storage and this tree's integrations."""
    with mock_storage(), tempfile.TemporaryDirectory() as config_dir:
        async with async_test_home_assistant(config_dir=config_dir) as hass:
            # What the `hass` and `enable_custom_integrations` fixtures do.
            frame.async_setup(hass)
            hass.data.pop(loader.DATA_CUSTOM_COMPONENTS)
            try:
                yield hass
            finally:
                await hass.async_stop(force=True)


async def run_scenario(
    scenario: Scenario, config: str, model: str, endpoint: LLMEndpoint | None
) -> ScenarioOutcome:
    """Play every turn of a scenario in a fresh home; never raises."""
    outcome = ScenarioOutcome(
        scenario.id, scenario.category, scenario.language, model, config
    )
    try:
        async with home_assistant() as hass:
            device_id = await async_build_home(hass, scenario.home)
            features = CONFIGS[config]
            if features is None:
                agent_id = conversation.HOME_ASSISTANT_AGENT
            else:
                assert endpoint is not None, f"{config} needs an LLM"
                _, agent_id = await async_add_jarvis_agent(
                    hass, endpoint.proxy.url, agent_data(endpoint.alias, features)
                )
            calls = endpoint.proxy.calls if endpoint else []
            await _play(
                hass,
                scenario,
                agent_id=agent_id,
                device_id=device_id,
                calls=calls,
                outcome=outcome,
            )
    except Exception as err:
        _LOGGER.exception("Scenario %s (%s) failed to run", scenario.id, config)
        outcome.error = f"{type(err).__name__}: {err}"
    return outcome


async def _play(
    hass: HomeAssistant,
    scenario: Scenario,
    *,
    agent_id: str,
    device_id: str,
    calls: list[LLMCall],
    outcome: ScenarioOutcome,
) -> None:
    conversation_id: str | None = None
    previous: LLMCall | None = None
    for turn in scenario.turns:
        before = _snapshot(hass)
        first_call = len(calls)
        started = time.monotonic()
        result = await conversation.async_converse(
            hass,
            turn.text,
            None if turn.new_conversation else conversation_id,
            Context(),
            language=scenario.language,
            agent_id=agent_id,
            device_id=device_id,
        )
        await hass.async_block_till_done()
        seconds = time.monotonic() - started
        conversation_id = result.conversation_id
        tool_calls = _tool_calls(trace.async_get_traces()[-1])
        reply = str(result.response.speech.get("plain", {}).get("speech", ""))
        made = calls[first_call:]
        record = TurnOutcome(
            turn.text,
            reply,
            _judge(hass, turn, before, reply, tool_calls),
            seconds,
            llm_calls=len(made),
            prompt_tokens=sum(c.prompt_tokens for c in made),
            completion_tokens=sum(c.completion_tokens for c in made),
            cached_tokens=sum(c.cached_tokens or 0 for c in made),
            tool_calls=tool_calls,
            evaluated_tokens=[c.prompt_tokens - (c.cached_tokens or 0) for c in made],
        )
        for call in made:
            if previous is not None:
                record.prefix_reuse.append(_prefix_share(previous, call))
            previous = call
        outcome.turns.append(record)


def _judge(
    hass: HomeAssistant,
    turn: Turn,
    before: dict[str, State],
    reply: str,
    tool_calls: list[str],
) -> list[str]:
    problems = state_problems(before, _snapshot(hass), EXPOSED, turn)
    if not reply.strip():
        problems.append("empty reply")
    problems += [f"reply lacks {group!r}" for group in reply_misses(reply, turn.reply)]
    if turn.max_tool_calls is not None and len(tool_calls) > turn.max_tool_calls:
        problems.append(f"{len(tool_calls)} tool calls, at most {turn.max_tool_calls}")
    if turn.timer_seconds is not None:
        running = [t.seconds for t in hass.data[TIMER_DATA].timers.values()]
        if turn.timer_seconds not in running:
            problems.append(f"no {turn.timer_seconds} s timer (running: {running})")
    return problems


def _snapshot(hass: HomeAssistant) -> dict[str, State]:
    return {state.entity_id: state for state in hass.states.async_all()}


def _tool_calls(turn_trace: trace.ConversationTrace) -> list[str]:
    """The tools (or, for HA's own agent, intents) that ran during a turn."""
    return [
        event["data"].get("tool_name") or event["data"].get("intent_name")
        for event in turn_trace.as_dict()["events"]
        if event["event_type"] == trace.ConversationTraceEventType.TOOL_CALL
    ]


def _prefix_share(previous: LLMCall, current: LLMCall) -> float:
    old, new = previous.rendered(), current.rendered()
    if not new:
        return 0.0
    common = next(
        (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
        min(len(old), len(new)),
    )
    return common / len(new)


async def run_all(
    scenarios: Iterable[Scenario],
    configs: Iterable[str],
    model: str,
    endpoint: LLMEndpoint | None,
    progress: Callable[[ScenarioOutcome], None] | None = None,
) -> list[ScenarioOutcome]:
    """Every scenario under every configuration, one at a time, scenario-major.

    Scenario-major keeps the configurations' runs close in time, so that load
    from other processes on the machine falls on all of them alike.
    """
    outcomes = []
    config_list = list(configs)
    for scenario in scenarios:
        for config in config_list:
            outcome = await run_scenario(scenario, config, model, endpoint)
            outcomes.append(outcome)
            if progress is not None:
                progress(outcome)
    return outcomes


async def run_on_server(
    scenarios: Iterable[Scenario],
    configs: Iterable[str],
    model: str,
    server_url: str,
    alias: str,
    *,
    progress: Callable[[ScenarioOutcome], None] | None = None,
    dump: Path | None = None,
) -> list[ScenarioOutcome]:
    """`run_all` against a running llama.cpp server, through a recording proxy
    (which appends every LLM call to `dump` if given)."""
    proxy = RecordingProxy(server_url, dump)
    await proxy.start()
    try:
        return await run_all(
            scenarios, configs, model, LLMEndpoint(proxy, alias), progress
        )
    finally:
        await proxy.stop()
