"""Runs generated tasks under each configuration, each in a fresh HA instance.

Configurations: Jarvis's (`bench.scenarios.runner.CONFIGS`: `default`, `plain`,
`full`, ...), `intent` (HA's matcher alone) and `ha-pipeline`: HA's own
`ollama` integration, set up through its config flow with the Assist API as a
user would, on the same model through `bench.ollama_adapter`, run by HA's
Assist pipeline with "Prefer handling commands locally" on (its matcher first,
the agent for what the matcher does not handle).

A task succeeds when the house ends as expected (and a question's reply has
the value). When it has not and the reply asks something, the user says "yes"
once, for every configuration alike, and the house is judged again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
import logging
import random
import time
from typing import Any

from homeassistant.components import conversation
from homeassistant.components.assist_pipeline.pipeline import (
    KEY_ASSIST_PIPELINE,
    PipelineEvent,
    PipelineEventType,
    PipelineInput,
    PipelineRun,
    PipelineStage,
)
from homeassistant.const import CONF_LLM_HASS_API, CONF_NAME, CONF_URL
from homeassistant.core import Context, HomeAssistant, State
from homeassistant.helpers import chat_session, entity_registry as er, llm
from homeassistant.setup import async_setup_component

from bench.ollama_adapter import OllamaAdapter
from bench.scenarios.home import async_add_satellite
from bench.scenarios.model import reply_misses, state_problems
from bench.scenarios.proxy import LLMCall
from bench.scenarios.runner import CONFIGS, LLMEndpoint, agent_data, home_assistant
from scripts.run import text_pipeline
from tests.common import async_add_jarvis_agent

from . import entities as real, home as gen
from .score import TaskOutcome, contradictions
from .tasks import MINED, YES, Task

_LOGGER = logging.getLogger(__name__)

HA_PIPELINE = "ha-pipeline"
INTENT = "intent"
LLM_CONFIGS = (*(c for c, f in CONFIGS.items() if f is not None), HA_PIPELINE)
ALL_CONFIGS = (*LLM_CONFIGS, INTENT)


type Say = Callable[[str, str | None], Awaitable[tuple[str, str | None]]]


@dataclass(frozen=True, slots=True)
class Rig:
    """What a configuration runs on: the model's proxy and, for HA's agent, the
    Ollama adapter in front of it."""

    config: str
    model: str
    seed: int
    endpoint: LLMEndpoint | None = None
    adapter: OllamaAdapter | None = None


async def run_task(task: Task, home: gen.Home, rig: Rig) -> TaskOutcome:
    """Play a task in a fresh instance of its home; never raises."""
    outcome = TaskOutcome(
        task.id,
        task.category,
        task.language,
        rig.model,
        rig.config,
        rig.seed,
        task.text,
    )
    try:
        async with home_assistant() as hass:
            hass.config.language = task.language
            entities = await real.async_build(hass, home)
            satellite = async_add_satellite(hass)
            say = await _agent(hass, rig, task.language, satellite)
            await _play(
                hass, task, entities=entities, say=say, rig=rig, outcome=outcome
            )
    except Exception as err:
        _LOGGER.exception("Task %s (%s) failed to run", task.id, rig.config)
        outcome.error = f"{type(err).__name__}: {err}"
        outcome.problems.append(outcome.error)
    return outcome


async def _play(
    hass: HomeAssistant,
    task: Task,
    *,
    entities: dict[str, real.BenchEntity],
    say: Say,
    rig: Rig,
    outcome: TaskOutcome,
) -> None:
    exposed = real.exposed_ids(hass, entities)
    before = _snapshot(hass)
    calls = rig.endpoint.proxy.calls if rig.endpoint else []
    first_call = len(calls)
    started = time.monotonic()
    reply, conversation_id = await say(task.text, None)
    outcome.replies.append(reply)
    outcome.problems = _judge(
        hass, task, entities=entities, exposed=exposed, before=before, reply=reply
    )
    if outcome.problems and reply.rstrip().endswith("?"):
        outcome.said_yes = True
        reply, _ = await say(YES[task.language], conversation_id)
        outcome.replies.append(reply)
        outcome.problems = _judge(
            hass, task, entities=entities, exposed=exposed, before=before, reply=reply
        )
    outcome.seconds = time.monotonic() - started
    made: list[LLMCall] = calls[first_call:]
    outcome.llm_calls = len(made)
    outcome.prompt_tokens = sum(c.prompt_tokens for c in made)
    outcome.evaluated_tokens = sum(
        c.prompt_tokens - (c.cached_tokens or 0) for c in made
    )
    names = {e: state.name for e, state in _snapshot(hass).items() if e in exposed}
    outcome.contradictions = [
        claim
        for text in outcome.replies
        for claim in contradictions(text, _snapshot(hass), names, task.language)
    ]
    outcome.ok = not outcome.problems


def _judge(
    hass: HomeAssistant,
    task: Task,
    *,
    entities: dict[str, real.BenchEntity],
    exposed: frozenset[str],
    before: dict[str, State],
    reply: str,
) -> list[str]:
    turn = task.turn()
    problems = state_problems(before, _snapshot(hass), exposed, turn)
    problems += [f"reply lacks {group!r}" for group in reply_misses(reply, turn.reply)]
    if task.todo_item is not None:
        list_id, item = task.todo_item
        todo = entities[list_id]
        assert isinstance(todo, real.BenchTodo)
        if item.casefold() not in (s.casefold() for s in todo.summaries()):
            problems.append(f"{list_id} lacks {item!r}")
    if not reply.strip():
        problems.append("empty reply")
    return problems


def _snapshot(hass: HomeAssistant) -> dict[str, State]:
    return {state.entity_id: state for state in hass.states.async_all()}


async def _agent(hass: HomeAssistant, rig: Rig, language: str, satellite: str) -> Say:
    """Set up the configuration's agent; how to say something to it."""
    if rig.config == HA_PIPELINE:
        assert rig.adapter is not None
        return await _ha_pipeline(hass, rig.adapter, language, satellite)
    features = CONFIGS.get(rig.config)
    if features is None:
        agent_id = conversation.HOME_ASSISTANT_AGENT
    else:
        assert rig.endpoint is not None, f"{rig.config} needs an LLM"
        _, agent_id = await async_add_jarvis_agent(
            hass, rig.endpoint.proxy.url, agent_data(rig.endpoint.alias, features)
        )

    async def say(text: str, conversation_id: str | None) -> tuple[str, str | None]:
        result = await conversation.async_converse(
            hass,
            text,
            conversation_id,
            Context(),
            language=language,
            agent_id=agent_id,
            device_id=satellite,
        )
        await hass.async_block_till_done()
        speech = result.response.speech.get("plain", {}).get("speech", "")
        return str(speech), result.conversation_id

    return say


async def _ha_pipeline(
    hass: HomeAssistant, adapter: OllamaAdapter, language: str, satellite: str
) -> Say:
    """HA's ollama integration as a user adds it, in an Assist pipeline that
    prefers local intents."""
    flow = await hass.config_entries.flow.async_init(
        "ollama", context={"source": "user"}, data={CONF_URL: adapter.url}
    )
    entry = flow["result"]
    await hass.async_block_till_done()
    subflow = await hass.config_entries.subentries.async_init(
        (entry.entry_id, "conversation"), context={"source": "user"}
    )
    result = await hass.config_entries.subentries.async_configure(
        subflow["flow_id"],
        {
            CONF_NAME: "Ollama Conversation",
            "model": adapter.name,
            "prompt": llm.DEFAULT_INSTRUCTIONS_PROMPT,
            CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        },
    )
    assert result["type"] == "create_entry", result
    await hass.async_block_till_done()
    agent_id = er.async_get(hass).async_get_entity_id(
        "conversation", "ollama", next(iter(entry.subentries))
    )
    assert agent_id is not None
    assert await async_setup_component(hass, "assist_pipeline", {})
    pipeline = await hass.data[KEY_ASSIST_PIPELINE].pipeline_store.async_create_item(
        text_pipeline("Ollama", language, agent_id) | {"prefer_local_intents": True}
    )

    async def say(text: str, conversation_id: str | None) -> tuple[str, str | None]:
        events: list[PipelineEvent] = []
        with chat_session.async_get_chat_session(hass, conversation_id) as session:
            run = PipelineInput(
                run=PipelineRun(
                    hass,
                    context=Context(),
                    pipeline=pipeline,
                    start_stage=PipelineStage.INTENT,
                    end_stage=PipelineStage.INTENT,
                    event_callback=events.append,
                ),
                session=session,
                intent_input=text,
                device_id=satellite,
            )
            await run.validate()
            await run.execute()
        await hass.async_block_till_done()
        for event in events:
            if event.type == PipelineEventType.ERROR:
                raise RuntimeError(f"pipeline error: {event.data}")
            if event.type == PipelineEventType.INTENT_END:
                output: dict[str, Any] = event.data["intent_output"]
                speech = output["response"]["speech"].get("plain", {}).get("speech", "")
                return str(speech), output.get("conversation_id")
        raise RuntimeError("the pipeline ended without an intent result")

    return say


async def run_tasks(
    tasks: Sequence[Task],
    homes: dict[str, gen.Home],
    rig: Rig,
    progress: Callable[[TaskOutcome], None] | None = None,
) -> list[TaskOutcome]:
    """Every task under one rig, in the order its seed shuffles them to."""
    order = list(tasks)
    random.Random(rig.seed).shuffle(order)
    outcomes = []
    for task in order:
        outcome = await run_task(task, homes[task.language], rig)
        outcomes.append(outcome)
        if progress is not None:
            progress(outcome)
    return outcomes


async def mine(home: gen.Home, pool: Sequence[Task], wanted: int) -> list[Task]:
    """Up to `wanted` commands of `pool` that HA's matcher alone fails on."""
    rig = Rig(INTENT, "none", 0)
    missed = []
    for task in pool:
        if len(missed) == wanted:
            break
        if not (await run_task(task, home, rig)).ok:
            missed.append(task.with_category(MINED, len(missed)))
    return missed
