"""The conversation-scoped cache of planner, router and memory results."""

from __future__ import annotations

from typing import Any

from custom_components.jarvis.engine.cache import (
    IDLE_SECONDS,
    ConversationCache,
    ConversationCaches,
)
from custom_components.jarvis.engine.llm.base import LLMClient
from custom_components.jarvis.engine.loop import LoopSettings, ReplyLoop
from custom_components.jarvis.engine.memory import LongTermMemory
from custom_components.jarvis.engine.planner import PLANNER_PROMPT, Plan, PlanStep
from custom_components.jarvis.engine.router import ToolRouter
from custom_components.jarvis.engine.types import Message, ToolSpec
from tests.engine.test_loop import TOOLS, make_host, run_loop
from tests.engine.test_memory import DictBackend
from tests.scripted_llm import Reply, ScriptedLLMServer

ASK = "turn on the kitchen light"
PLAN = Reply(content='1. HassTurnOn: {"name": "kitchen light"}\n2. reply')
CALL = Reply(tool_calls=[("HassTurnOn", {"name": "kitchen light"})])
# A planned turn that turns the light on: plan, call, answer.
PLANNED = (PLAN, CALL, Reply(content="On."))
VACUUM = ToolSpec("HassVacuumStart", "Starts a vacuum.", {"type": "object"})


def planner_calls(server: ScriptedLLMServer) -> int:
    """Requests that were planning calls."""
    head = PLANNER_PROMPT.split("\n", 1)[0]
    return sum(
        str(r["json"]["messages"][0]["content"]).startswith(head)
        for r in server.chat_requests
    )


async def turn(
    client: LLMClient,
    cache: ConversationCache,
    history: list[Message],
    tools: list[ToolSpec] = TOOLS,
) -> Any:
    """One planned turn of a conversation; its reply joins the history."""
    result = await run_loop(
        client, make_host()[0], history=history, tools=tools, planner=True, cache=cache
    )
    history.append(Message("assistant", result.text))
    return result


async def test_a_repeated_request_is_planned_once_until_the_catalogue_changes(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    cache = ConversationCache()
    history = [Message("user", ASK)]
    scripted_llm.script(*PLANNED)
    first = await turn(client, cache, history)

    history.append(Message("user", "Turn on the kitchen light!"))
    scripted_llm.script(CALL, Reply(content="On again."))
    second = await turn(client, cache, history)
    assert planner_calls(scripted_llm) == 1
    assert second.cache_hits == ["plan"]
    assert second.plan == first.plan
    assert (first.llm_calls, second.llm_calls) == (3, 2)

    # An MCP server brought a tool: the catalogue changed, so the plan misses.
    history.append(Message("user", ASK))
    scripted_llm.script(*PLANNED)
    third = await turn(client, cache, history, [*TOOLS, VACUUM])
    assert planner_calls(scripted_llm) == 2
    assert "plan" not in third.cache_hits


async def test_stop_and_a_new_conversation_clear_the_cache(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    cache = ConversationCache()
    history = [Message("user", ASK)]
    scripted_llm.script(*PLANNED)
    await turn(client, cache, history)

    history.append(Message("user", "stop"))
    await turn(client, cache, history)
    history.append(Message("user", ASK))
    scripted_llm.script(*PLANNED)
    await turn(client, cache, history)
    assert planner_calls(scripted_llm) == 2

    # The same cache given to a conversation that just began (an id reused).
    scripted_llm.script(*PLANNED)
    await turn(client, cache, [Message("user", ASK)])
    assert planner_calls(scripted_llm) == 3


async def test_failed_plans_are_not_cached(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    cache = ConversationCache()
    history = [Message("user", ASK)]
    scripted_llm.script(Reply(status=503), CALL, Reply(content="On."))
    await turn(client, cache, history)
    history.append(Message("user", ASK))
    scripted_llm.script(Reply(content="Sure thing!"), CALL, Reply(content="On."))
    await turn(client, cache, history)
    history.append(Message("user", ASK))
    scripted_llm.script(*PLANNED)
    await turn(client, cache, history)
    assert planner_calls(scripted_llm) == 3


def test_routes_that_fell_open_are_not_cached() -> None:
    cache = ConversationCache()
    router = ToolRouter()
    for text in ("xyzzy", ASK):
        cache.keep_route(text, TOOLS, [], router.route(text, TOOLS))
    assert cache.route("xyzzy", TOOLS, []) is None
    kept = cache.route(ASK, TOOLS, [])
    assert kept is not None
    assert not kept.fell_open
    # Other kept tools, or another catalogue: another route.
    assert cache.route(ASK, TOOLS, ["GetLiveContext"]) is None
    assert cache.route(ASK, [*TOOLS, VACUUM], []) is None


def test_plans_keep_only_arguments_the_request_contains() -> None:
    """ "Turn it off" named the kitchen light this time; next time "it" may be
    the fan."""
    cache = ConversationCache()
    plan = Plan(
        [PlanStep("HassTurnOn", '{"name": "Kitchen Light"}', {"name": "Kitchen Light"})]
    )
    cache.keep_plan("turn it on", TOOLS, plan)
    cache.keep_plan(ASK, TOOLS, plan)
    assert cache.plan("Turn it on.", TOOLS) == Plan([PlanStep("HassTurnOn")])
    assert cache.plan(ASK, TOOLS) == plan


async def test_memory_recall_is_cached_until_memory_changes(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    memory = LongTermMemory(DictBackend())
    await memory.remember("u1", "my wife's name is Anna")
    cache = ConversationCache()
    history = [Message("user", "what's my wife's name?")]
    hits = []
    for _ in range(3):
        scripted_llm.script(Reply(content="Anna."))
        loop = ReplyLoop(
            client, LoopSettings(model="test-model"), memory=memory, cache=cache
        )
        result = await loop.run(
            system_prompt="You are Jarvis.",
            history=history,
            tools=TOOLS,
            host=make_host()[0],
            user="u1",
        )
        hits.append(result.cache_hits)
        history += [Message("assistant", "Anna."), Message("user", history[0].content)]
        if len(hits) == 2:
            await memory.remember("u1", "my wife's name is Anne now")
    assert hits == [[], ["memory"], []]
    system, *messages = scripted_llm.chat_requests[-1]["json"]["messages"]
    # Recalled facts go with the request: the system prompt stays as it was.
    assert system["content"] == "You are Jarvis."
    request = [m for m in messages if m["role"] == "user"][-1]["content"]
    assert "- my wife's name is Anne now" in request


def test_each_conversation_has_its_own_cache_until_it_goes_idle() -> None:
    now = [0.0]
    caches = ConversationCaches(clock=lambda: now[0])
    first = caches.get("conversation-1")
    assert caches.get("conversation-1") is first
    assert caches.get("conversation-2") is not first
    now[0] += IDLE_SECONDS + 1
    assert caches.get("conversation-1") is not first
