"""The reply loop: everything a turn needs before its first model step (stop
requests, memory commands, the plan, recalled facts, the router's allow-list),
then the turn itself (`turn.Turn`)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import aclosing
from dataclasses import replace
import json
import re
import time

from ..budget import TokenEstimator
from ..cache import ConversationCache
from ..digest import digest_chars, tool_result_text
from ..echo import SmallTalk
from ..grounding import HouseView
from ..lang import every
from ..llm.base import ChatRequest, LLMClient, Usage
from ..memory import (
    MEMORY_TOOLS,
    Fact,
    LongTermMemory,
    memory_command,
    memory_section,
)
from ..phrases import (
    FORGOTTEN,
    NOTHING_TO_FORGET,
    REMEMBERED,
    REMEMBERED_WITHOUT_SECRET,
    STOPPED,
    TOO_SLOW,
    phrase,
)
from ..planner import REPLY, Plan, PlanStep, make_plan
from ..pointed import asks_of_the_home
from ..router import (
    Route,
    ToolRouter,
    fits,
    is_question,
    is_small_talk,
    opening_tools,
    small_talk_rest,
)
from ..text import any_of
from ..types import JsonObject, Message, ToolSpec
from .host import StepHost, say_text
from .records import LLMCallRecord, TurnResult, call_words
from .settings import Engine, LoopSettings, ProtocolMemory
from .step import ModelStep
from .turn import LookUp, Turn, say


class ReplyLoop:
    """Runs one user turn against a model with a set of tools."""

    def __init__(
        self,
        client: LLMClient,
        settings: LoopSettings,
        protocols: ProtocolMemory | None = None,
        memory: LongTermMemory | None = None,
        estimator: TokenEstimator | None = None,
        *,
        cache: ConversationCache | None = None,
    ) -> None:
        self.engine = Engine(
            client,
            settings,
            protocols or ProtocolMemory(),
            memory,
            estimator or TokenEstimator(),
        )
        self._settings = settings
        self._memory = memory
        # This conversation's planner, router and memory results.
        self._cache = cache or ConversationCache()

    async def run(
        self,
        *,
        system_prompt: str,
        history: Sequence[Message],
        tools: Sequence[ToolSpec],
        host: StepHost,
        language: str | None = None,
        user: str = "household",
        look_first: Sequence[LookUp] | None = None,
        context: Sequence[str] = (),
        house: HouseView | None = None,
    ) -> TurnResult:
        """Answer the last user message in `history`.

        `system_prompt` must be the same from turn to turn, so that the
        server's prompt cache keeps it; what belongs to this turn only (the
        satellite's area, the time, recalled facts, the plan) is `context`,
        which goes with the request at the end of the messages.

        `look_first` are calls the engine makes before the model's first step,
        if their tool is offered: what the request asks about the home. Empty,
        it says the request names nothing in the home; None, that the host
        does not know.

        `house` is the live home each sentence of the model's reply is
        checked against before it is shown (`grounding`); None checks nothing.
        """
        started = time.monotonic()
        if sum(1 for m in history if m.role == "user") <= 1:
            self._cache.clear()  # a new conversation
        history = since_last_stop(history)
        request = next((m.content for m in reversed(history) if m.role == "user"), "")
        if is_stop_request(request):
            self._cache.clear()
            result = TurnResult(text=phrase(STOPPED, language), ended="stopped")
            await host.run_step(say_text(result.text))
            return result
        if self._memory is not None and (command := memory_command(request)):
            return await self._memory_command(command, user, host, language, started)
        hits: list[str] = []
        context = list(context)
        catalogue = self._catalogue(tools)
        idle_tools = self._opening(tools)
        small_talk = self._settings.tool_router and _is_small_talk(request, house)
        plan = await self._plan(request, history, tools, hits, small_talk=small_talk)
        limit = digest_chars(self._settings.model)
        # A question that names no device or area may be one for memory.
        home_free = look_first is not None and not look_first
        memory_question = is_question(request) and (
            home_free or _asks_not_acts(plan, tools, request)
        )
        if plan.reply_only:
            tools = []
        elif self._memory is not None and (
            plan.needs_memory or not plan.steps or memory_question
        ):
            facts = await self._recall(user, request, hits)
            if section := memory_section(facts, request, limit):
                context.append(section)
            # Memory has the answer to a question: offered tools only tempt a
            # small model to look it up in the house instead.
            tools = [] if section and memory_question else [*tools, *MEMORY_TOOLS]
        if len(plan.tools) > 1:
            context.append(plan.describe())
        offered, reasons, route = self._offered(history, tools, plan, hits)
        turn = Turn(
            engine=self.engine,
            system_prompt=system_prompt,
            messages=_digested_history(history, limit),
            # The router's order: its core first, as the warm-up shows them,
            # then the rest in the host's order. A tool offered later in the
            # turn goes last.
            tools={tool.name: tool for tool in offered},
            lead_tool=route.lead if route else None,
            chit_chat=bool(route and route.fell_open),
            idle_tools=idle_tools,
            catalogue=catalogue,
            language=language,
            request=request,
            digest_limit=limit,
            context=context,
        )
        turn.result.tool_reasons = reasons
        turn.result.cache_hits = hits
        turn.result.without_tools = bool(catalogue) and not turn.shown_tools()
        _record_plan(turn.result, plan)
        turn.plan = plan
        turn.small_talk = SmallTalk(request, language) if small_talk else None
        turn.user = user
        turn.look_first = look_first or ()
        turn.house = house
        await self._run_in_time(turn, host)
        turn.result.duration = time.monotonic() - started
        return turn.result

    def _catalogue(self, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
        """Every tool a turn may show: the host's and, with memory, its tools."""
        return [*tools, *MEMORY_TOOLS] if self._memory is not None else list(tools)

    def warm_up_request(
        self,
        *,
        system_prompt: str,
        tools: Sequence[ToolSpec] = (),
        context: Sequence[str] = (),
    ) -> ChatRequest:
        """A one-token request for the prompt's stable prefix, as a turn
        starts it: the system prompt, the tools of a turn whose request names
        none (the router's core and its search; every route starts with the
        core), or the whole catalogue without the router, and the context's
        first lines."""
        shown = self._opening(tools)
        turn = Turn(
            engine=self.engine,
            system_prompt=system_prompt,
            messages=[Message("user", "")],
            tools={tool.name: tool for tool in shown},
            catalogue=list(tools),
            language=None,
            context=list(context),
        )
        request = ModelStep(turn, tools_offered=bool(shown)).build_request()
        return replace(request, sampling=replace(request.sampling, max_tokens=1))

    def _opening(self, tools: Sequence[ToolSpec]) -> list[ToolSpec]:
        """The tools a turn starts its prompt with when its request names
        none, as a warm-up shows them."""
        return opening_tools(tools) if self._settings.tool_router else list(tools)

    async def warm_up(self, request: ChatRequest) -> Usage | None:
        """Have the server read a `warm_up_request` now, so that its prompt
        cache holds the prefix before the first turn. Returns what it counted."""
        usage: Usage | None = None
        async with aclosing(self.engine.client.chat_stream(request)) as stream:
            async for chunk in stream:
                usage = chunk.usage or usage
        return usage

    def _offered(
        self,
        history: Sequence[Message],
        tools: Sequence[ToolSpec],
        plan: Plan,
        hits: list[str],
    ) -> tuple[list[ToolSpec], dict[str, str], Route | None]:
        """The tools the turn offers, why each, and the router's route: its
        allow-list (with the plan's tools, those that failed last turn and
        the always offered), else the whole catalogue and no route."""
        if not (self._settings.tool_router and tools):
            return list(tools), {tool.name: "catalogue" for tool in tools}, None
        keep = [*plan.tools, *failed_last_turn(history), *self._settings.always_offer]
        route = self._route(_routing_text(history), tools, keep, hits)
        # Copies: the turn adds to them, the cached route stays as it was.
        reasons = dict(route.reasons) | dict.fromkeys(plan.tools, "plan")
        return list(route.tools), reasons, route

    async def _run_in_time(self, turn: Turn, host: StepHost) -> None:
        """Run the turn within the deadline; past it, what was said stays,
        and with nothing said, an apology."""
        try:
            async with asyncio.timeout(self._settings.turn_deadline):
                await turn.run(host)
        except TimeoutError:
            turn.result.ended = "deadline"
            turn.result.error = "turn deadline"
            if not turn.result.text.strip():
                await host.run_step(say(phrase(TOO_SLOW, turn.language), turn))

    async def _plan(
        self,
        request: str,
        history: Sequence[Message],
        tools: Sequence[ToolSpec],
        hits: list[str],
        *,
        small_talk: bool,
    ) -> Plan:
        """The turn's plan: reply-only for small talk, else the planner's, once
        per request and catalogue in a conversation."""
        if small_talk:
            # A reply-only plan, known without asking the model.
            return Plan([PlanStep(REPLY, "small talk")])
        if not (self._settings.planner and tools):
            return Plan()
        if (cached := self._cache.plan(request, tools)) is not None:
            hits.append("plan")
            return cached
        plan = await make_plan(
            self.engine.client,
            self._settings.model,
            request,
            history[:-1],
            tools,
            time_limit=self._settings.planner_timeout,
        )
        self._cache.keep_plan(request, tools, plan)
        return plan

    async def _recall(self, user: str, request: str, hits: list[str]) -> list[Fact]:
        """Facts for the request, recalled once per revision of the memory."""
        assert self._memory is not None
        revision = self._memory.revision
        if (facts := self._cache.facts(user, request, revision)) is not None:
            hits.append("memory")
            return facts
        facts = await self._memory.recall(user, request)
        self._cache.keep_facts(user, request, revision, facts)
        return facts

    def _route(
        self,
        text: str,
        tools: Sequence[ToolSpec],
        keep: Sequence[str],
        hits: list[str],
    ) -> Route:
        """The router's allow-list, once per text, catalogue and kept tools."""
        if (cached := self._cache.route(text, tools, keep)) is not None:
            hits.append("route")
            return cached
        route = ToolRouter().route(text, tools, keep=keep)
        self._cache.keep_route(text, tools, keep, route)
        return route

    async def _memory_command(
        self,
        command: tuple[str, str],
        user: str,
        host: StepHost,
        language: str | None,
        started: float,
    ) -> TurnResult:
        """Remember or forget without the LLM: small models skip the tool."""
        assert self._memory is not None
        action, text = command
        if action == "remember":
            fact = await self._memory.remember(user, text)
            reply = phrase(
                REMEMBERED_WITHOUT_SECRET if fact.withheld else REMEMBERED, language
            )
        else:
            removed = await self._memory.forget(user, text)
            reply = phrase(FORGOTTEN if removed else NOTHING_TO_FORGET, language)
        result = TurnResult(text=reply, protocol="text", ended="memory")
        await host.run_step(say_text(reply))
        result.duration = time.monotonic() - started
        return result


_STOP_RE = re.compile(
    rf"^\W*(?:{any_of(every(lambda pack: pack.stop))})\W*$", re.IGNORECASE
)


def is_stop_request(text: str) -> bool:
    """The user ends the conversation ("stop", "never mind", "vergiss es")."""
    return bool(_STOP_RE.match(text.strip()))


def since_last_stop(history: Sequence[Message]) -> list[Message]:
    """History after the last stop request: a stopped conversation carries nothing over."""
    for index in range(len(history) - 2, -1, -1):
        if history[index].role == "user" and is_stop_request(history[index].content):
            return list(history[index + 1 :])
    return list(history)


def _routing_text(history: Sequence[Message]) -> str:
    """The request, with the previous one for follow-ups that name no verb."""
    said = [m.content for m in history if m.role == "user"]
    return " ".join(said[-2:])


def _asks_not_acts(plan: Plan, tools: Sequence[ToolSpec], request: str) -> bool:
    """A planned question that none of the plan's tools is backed by: the
    planner of a small model plans device actions for "when is my mother's
    birthday?"."""
    if not plan.steps or not is_question(request):
        return False
    planned = set(plan.tools)
    return not any(fits(tool, request) for tool in tools if tool.name in planned)


def failed_last_turn(history: Sequence[Message]) -> list[str]:
    """Tools whose call failed in the previous turn: the user may now add what
    was missing ("which light?" - "the kitchen one")."""
    users = [i for i, m in enumerate(history) if m.role == "user"]
    if len(users) < 2:
        return []
    return [
        m.name
        for m in history[users[-2] : users[-1]]
        if m.role == "tool" and m.name and '"error"' in m.content
    ]


def _digested_history(history: Sequence[Message], limit: int) -> list[Message]:
    """Earlier tool results as the model read them in their own turn: long ones
    digested again from the same words, so the prompt prefix stays the same."""
    messages: list[Message] = []
    request = ""
    arguments: dict[str, JsonObject] = {}
    for message in history:
        if message.role == "user":
            request = message.content
        arguments.update({call.id: call.arguments for call in message.tool_calls})
        result = _long_result(message, limit)
        if result is None:
            messages.append(message)
            continue
        words = call_words(request, arguments.get(message.tool_call_id or "", {}))
        text = tool_result_text(
            result, source=message.name or "tool", request=words, limit=limit
        )
        messages.append(
            Message("tool", text, tool_call_id=message.tool_call_id, name=message.name)
        )
    return messages


def _long_result(message: Message, limit: int) -> JsonObject | None:
    """The result object of a tool message too long for the limit."""
    if message.role != "tool" or len(message.content) <= limit:
        return None
    try:
        result = json.loads(message.content)
    except ValueError:
        return None
    return result if isinstance(result, dict) else None


def _is_small_talk(request: str, house: HouseView | None) -> bool:
    """Small talk, with whatever follows it pointing nowhere in the home:
    0.5B answered "How are you today?" with the living room's temperature,
    offered tools."""
    if is_small_talk(request):
        return True
    rest = small_talk_rest(request)
    return rest is not None and not asks_of_the_home(rest, house(()) if house else ())


def _record_plan(result: TurnResult, plan: Plan) -> None:
    """The planner's call, when there was one, among the turn's LLM calls."""
    result.plan = [f"{step.action}: {step.detail}" for step in plan.steps]
    if not plan.attempted:
        return
    result.llm_calls += 1
    result.prompt_tokens += plan.prompt_tokens
    result.completion_tokens += plan.completion_tokens
    result.calls.append(
        LLMCallRecord(
            "plan",
            "none",
            0,
            plan.prompt_tokens,
            plan.completion_tokens,
            None,
            plan.duration_s,
            plan.outcome,
        )
    )
