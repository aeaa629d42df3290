"""The agentic tool loop: call the model, run its tool calls, repeat, reply.

The loop streams each step to a `StepHost` (Home Assistant's chat log, or a
local host in tests and scripts) and keeps the guards small models need:
text-protocol fallback, tool-name normalisation, unknown and repeated calls
answered with tool errors, no junk shown to the user, a capped number of turns.
"""

from __future__ import annotations

import asyncio
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Mapping,
    Sequence,
)
from contextlib import aclosing
from dataclasses import dataclass, field
import json
import re
import time
from typing import Literal, Protocol

from .budget import TokenEstimator, fit, over_limit, prompt_chars
from .cache import ConversationCache
from .digest import MAX_RAW_CHARS, digest_chars, tool_result_text
from .llm.base import (
    ChatRequest,
    LLMClient,
    LLMError,
    LLMToolsRejectedError,
    Usage,
)
from .memory import (
    MEMORY_TOOLS,
    Fact,
    LongTermMemory,
    memory_command,
    memory_section,
)
from .modelsize import is_small_model
from .output import ReleaseGate, ThinkFilter, strip_think
from .phrases import (
    DID_FIELD,
    DONE,
    FORGOTTEN,
    LLM_UNAVAILABLE,
    NOT_UNDERSTOOD,
    NOTHING_TO_FORGET,
    REMEMBERED,
    REMEMBERED_WITHOUT_SECRET,
    STOPPED,
    DidPhrase,
    did_reply,
    final_reply,
    phrase,
)
from .planner import MEMORY, REPLY, Plan, PlanStep, grounded, make_plan
from .redact import redact, redacting_logger
from .router import (
    TOOL_SEARCH,
    Route,
    ToolRouter,
    asked_part,
    command_part,
    fits,
    is_question,
    is_small_talk,
)
from .speech import clean_for_speech
from .textproto import (
    new_call,
    normalize_tool_name,
    parse_text_reply,
    render_messages_for_text_protocol,
    render_tool_section,
    repair_arguments,
    validate_arguments,
)
from .types import JsonObject, Message, ToolCall, ToolSpec

_LOGGER = redacting_logger(__name__)

type Protocol_ = Literal["native", "text"]

REPAIR_INSTRUCTION = (
    "Answer the user's last message now in one or two short plain sentences, "
    "in the user's language. Do not write JSON or call tools."
)
SUMMARY_INSTRUCTION = (
    "Stop using tools now. In one short sentence, in the user's language, tell "
    "the user truthfully what was done and what could not be done."
)
ANSWER_INSTRUCTION = (
    "Now write your reply to the user: one short plain sentence, in the user's "
    "language, saying what happened or what you found."
)
COMMAND_INSTRUCTION = (
    "The states asked about are above. Now do the rest of the request with a "
    'tool call: "{command}"'
)
MAX_TOOL_SEARCHES = 2  # per reply
# Room for what is added after fitting: protocol wrappers, an instruction.
BUDGET_MARGIN_TOKENS = 192
# Steps in a row whose every call failed before the loop stops retrying.
MAX_FAILED_STEPS = 2


# --- What a step streams to its host ------------------------------------------


@dataclass(frozen=True, slots=True)
class StepStart:
    """A new assistant message begins."""


@dataclass(frozen=True, slots=True)
class TextDelta:
    """Text that may be shown (and spoken) now."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A tool call of the current message.

    When `answer` is set the engine answered the call itself (a guard error) and
    the host must record it without running it.
    """

    call: ToolCall
    answer: JsonObject | None = None


type Delta = StepStart | TextDelta | ToolCallDelta


class StepHost(Protocol):
    """Where steps go: shows text as it streams and runs the tool calls."""

    async def run_step(self, deltas: AsyncIterator[Delta]) -> Mapping[str, JsonObject]:
        """Consume one step; return results of the calls without an `answer`, by id."""


type ToolHandler = Callable[[JsonObject], Awaitable[JsonObject]]


class LocalStepHost:
    """A StepHost that runs tools from a mapping of handlers (tests, scripts)."""

    def __init__(self, handlers: Mapping[str, ToolHandler]) -> None:
        self._handlers = handlers
        self.text = ""
        self.calls: list[ToolCall] = []

    async def run_step(self, deltas: AsyncIterator[Delta]) -> Mapping[str, JsonObject]:
        """Collect text; run each call not answered by the engine."""
        results: dict[str, JsonObject] = {}
        async for delta in deltas:
            if isinstance(delta, TextDelta):
                self.text += delta.text
            elif isinstance(delta, ToolCallDelta) and delta.answer is None:
                self.calls.append(delta.call)
                results[delta.call.id] = await self._handlers[delta.call.name](
                    delta.call.arguments
                )
        return results


# --- Settings, state and results ----------------------------------------------


@dataclass(frozen=True, slots=True)
class LoopSettings:
    """Per-agent settings of the loop."""

    model: str
    max_turns: int = 8
    max_tokens: int = 512
    num_ctx: int | None = None
    keep_alive: int | None = None
    think: bool | None = None
    temperature: float | None = None
    call_timeout: float = 120.0  # seconds the server may stay silent
    # Strip personal data and secrets from what the user says before the LLM.
    redact_prompts: bool = False
    # Offer a per-turn allow-list of tools instead of the whole catalogue.
    tool_router: bool = False
    # Tools the router always keeps.
    always_offer: tuple[str, ...] = ()
    # A short planning call before the loop (see planner.py).
    planner: bool = False
    planner_timeout: float = 30.0
    # The model's context window in tokens; prompts are kept within it.
    context_size: int | None = None


class ProtocolMemory:
    """Which models use the text tool protocol.

    A model that once wrote a call as text stays on the text protocol for every
    later conversation, and small models (by the size in their name) start on
    it: neither pays for native tool schemas it never uses (for Qwen2.5-Coder
    0.5B in a demo home they triple the prompt, 1,474 to 4,172 tokens).
    """

    def __init__(self) -> None:
        self._text_models: set[str] = set()

    def is_text(self, model: str) -> bool:
        """Whether this model needs the text protocol, known or judged by size."""
        return model in self._text_models or is_small_model(model)

    def use_text(self, model: str) -> None:
        """Use the text protocol for this model from now on."""
        self._text_models.add(model)


@dataclass(frozen=True, slots=True)
class LLMCallRecord:
    """One call to the model and how it went."""

    # plan | step | answer | repair | summary
    purpose: str
    # native | text | none (no tools offered)
    protocol: str
    tools_offered: int
    prompt_tokens: int
    completion_tokens: int
    first_token_s: float | None
    duration_s: float
    # ok | junk | unusable | llm_error | tools_rejected
    outcome: str


@dataclass(frozen=True, slots=True)
class _Timing:
    first_token_s: float | None
    duration_s: float
    usage: Usage | None


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call of a turn and what came back."""

    name: str
    arguments: JsonObject
    result: JsonObject
    answered_by_engine: bool


@dataclass(slots=True)
class TurnResult:
    """What a turn did."""

    text: str = ""
    protocol: Protocol_ = "native"
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    # done | stopped | memory | max_turns | tool_failures | llm_error |
    # not_understood | final_reply
    ended: str = "done"
    duration: float = 0.0
    # Why each offered tool was offered (router, plan, previous turn, search).
    tool_reasons: dict[str, str] = field(default_factory=dict)
    plan: list[str] = field(default_factory=list)
    calls: list[LLMCallRecord] = field(default_factory=list)
    # Why the turn could not reach the model, when it could not.
    error: str | None = None
    # Why this turn moved to the text protocol: tools_rejected | call_as_text
    protocol_switch: str | None = None
    # What the context budget had to do: tool results shortened, turns summarised.
    shortened_results: int = 0
    summarised_turns: int = 0
    # What came from the conversation's cache: plan | route | memory
    cache_hits: list[str] = field(default_factory=list)
    # Tool calls run straight from the plan, without the chat model.
    planned_calls: int = 0


# --- The loop -----------------------------------------------------------------


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
        self._client = client
        self._settings = settings
        self._protocols = protocols or ProtocolMemory()
        self._memory = memory
        self._estimator = estimator or TokenEstimator()
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
    ) -> TurnResult:
        """Answer the last user message in `history`.

        `look_first` are calls the engine makes before the model's first step,
        if their tool is offered: what the request asks about the home. Empty,
        it says the request names nothing in the home; None, that the host
        does not know.
        """
        started = time.monotonic()
        if sum(1 for m in history if m.role == "user") <= 1:
            self._cache.clear()  # a new conversation
        history = since_last_stop(history)
        request = next((m.content for m in reversed(history) if m.role == "user"), "")
        if is_stop_request(request):
            self._cache.clear()
            result = TurnResult(text=phrase(STOPPED, language), ended="stopped")
            await host.run_step(_say_text(result.text))
            return result
        if self._memory is not None and (command := memory_command(request)):
            return await self._memory_command(command, user, host, language, started)
        hits: list[str] = []
        plan = await self._plan(request, history, tools, hits)
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
                # After the stable part, so the server's prompt cache still hits.
                system_prompt = f"{system_prompt}\n\n{section}"
            # Memory has the answer to a question: offered tools only tempt a
            # small model to look it up in the house instead.
            tools = [] if section and memory_question else [*tools, *MEMORY_TOOLS]
        if len(plan.tools) > 1:
            system_prompt = f"{system_prompt}\n\n{plan.describe()}"
        offered = list(tools)
        reasons = {tool.name: "catalogue" for tool in tools}
        if self._settings.tool_router and tools:
            route = self._route(
                _routing_text(history),
                tools,
                [
                    *plan.tools,
                    *_failed_last_turn(history),
                    *self._settings.always_offer,
                ],
                hits,
            )
            # Copies: the turn adds to them, the cached route stays as it was.
            offered, reasons = list(route.tools), dict(route.reasons)
            for name in plan.tools:
                reasons[name] = "plan"
        turn = _Turn(
            loop=self,
            system_prompt=system_prompt,
            messages=_digested_history(history, limit),
            tools={tool.name: tool for tool in offered},
            catalogue=list(tools),
            language=language,
            request=request,
            digest_limit=limit,
        )
        turn.result.tool_reasons = reasons
        turn.result.cache_hits = hits
        turn.result.plan = [f"{step.action}: {step.detail}" for step in plan.steps]
        if plan.attempted:
            turn.result.llm_calls += 1
            turn.result.prompt_tokens += plan.prompt_tokens
            turn.result.completion_tokens += plan.completion_tokens
            turn.result.calls.append(
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
        turn.plan = plan
        turn.user = user
        turn.look_first = look_first or ()
        await turn.run(host)
        turn.result.duration = time.monotonic() - started
        return turn.result

    async def _plan(
        self,
        request: str,
        history: Sequence[Message],
        tools: Sequence[ToolSpec],
        hits: list[str],
    ) -> Plan:
        """The turn's plan: reply-only for small talk, else the planner's, once
        per request and catalogue in a conversation."""
        if self._settings.tool_router and is_small_talk(request):
            # A reply-only plan, known without asking the model.
            return Plan([PlanStep(REPLY, "small talk")])
        if not (self._settings.planner and tools):
            return Plan()
        if (cached := self._cache.plan(request, tools)) is not None:
            hits.append("plan")
            return cached
        plan = await make_plan(
            self._client,
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
        await host.run_step(_say_text(reply))
        result.duration = time.monotonic() - started
        return result


# A tool call by name and arguments.
type LookUp = tuple[str, JsonObject]


@dataclass
class _Turn:
    loop: ReplyLoop
    system_prompt: str
    messages: list[Message]
    tools: dict[str, ToolSpec]
    catalogue: list[ToolSpec]
    language: str | None
    result: TurnResult = field(default_factory=TurnResult)
    searches: int = 0
    user: str = "household"
    plan: Plan = field(default_factory=Plan)
    seen_calls: dict[str, JsonObject] = field(default_factory=dict)
    call_count: int = 0
    # The user's words this turn answers.
    request: str = ""
    # Characters a tool result may take before it is digested.
    digest_limit: int = MAX_RAW_CHARS
    look_first: Sequence[LookUp] = ()

    @property
    def text_mode(self) -> bool:
        return self.loop._protocols.is_text(self.loop._settings.model)

    async def run(self, host: StepHost) -> None:
        looked = await self._look_first(host)
        if self.text_mode and self.plan.tools and await self._run_plan(host):
            return
        settings = self.loop._settings
        failed_steps = 0
        # Text-protocol models re-shown their tools repeat the call: ask for
        # the answer once a question has what it needs.
        answer_next = looked and self.text_mode and is_question(self.request)
        nudge: str | None = None
        if looked and (command := command_part(self.request)):
            # With the asked-about states in front of it, 1.5B answered the
            # question and left the command ("dim the bed light") undone.
            nudge = COMMAND_INSTRUCTION.format(command=command)
        for _ in range(max(1, settings.max_turns)):
            step = _Step(
                self,
                tools_offered=bool(self.tools) and not answer_next,
                instruction=ANSWER_INSTRUCTION if answer_next else nudge,
                purpose="answer" if answer_next else "step",
            )
            results = await host.run_step(step.deltas())
            if step.outcome == "llm_error":
                self.result.ended = "llm_error"
                return
            if step.outcome == "junk":
                await self._final_reply(host, REPAIR_INSTRUCTION, "not_understood")
                return
            if not step.calls:
                return
            records = self._record_calls(step.calls, results)
            if await self._end_with_final_reply(host, records):
                return
            failed_steps = failed_steps + 1 if all(_failed(r) for r in records) else 0
            if failed_steps >= MAX_FAILED_STEPS:
                # Small models retry a failing call forever; stop and say so.
                await self._final_reply(host, self._summary(), "tool_failures")
                return
            # Shown tools again after a result, text-protocol models repeat the
            # call or echo the result; once every call worked, ask for the answer.
            answer_next = self.text_mode and not any(
                _failed(r) or r.name == TOOL_SEARCH for r in records
            )
            done = [r.name for r in self.result.tool_calls if not _failed(r)]
            nudge = None
            if (planned := self.plan.next_after(done)) is not None:
                # The plan goes on: name the next step rather than ask for the answer.
                answer_next = False
                nudge = f"Next step of the plan: {planned.action}" + (
                    f" ({planned.detail})" if planned.detail else ""
                )
            elif answer_next and await self._say_what_was_done(host):
                return
        await self._final_reply(host, self._summary(), "max_turns")

    async def _run_plan(self, host: StepHost) -> bool:
        """Run the plan's tool steps without the chat model, then let it answer.

        Text-protocol models pay a whole call per tool step and often fumble
        it. The steps run in order while each resolves; a step that does not
        (a guess of the planner's), or one that fails, leaves the rest of the
        turn to the loop, which sees what ran. A question must not act on a
        guess, so it is left to the loop. Returns whether the turn is answered.
        """
        if is_question(self.request):
            return False
        steps = [s for s in self.plan.steps if s.action not in (REPLY, MEMORY)]
        for step in steps:
            if (call := self._planned_call(step)) is None:
                return False
            delta = await self.guard(call)
            results = await host.run_step(_call_step(delta))
            self.result.planned_calls += 1
            records = self._record_calls([delta], results)
            if await self._end_with_final_reply(host, records):
                return True
            if any(_failed(r) for r in records):
                return False
        if not await self._say_what_was_done(host):
            await self._final_reply(host, ANSWER_INSTRUCTION, "done", purpose="answer")
        return True

    async def _say_what_was_done(self, host: StepHost) -> bool:
        """End a command's turn by saying what its actions did, when each says
        (a `DidPhrase`): asked to write that reply, 1.5B claimed actions no
        tool had done ("The garage door is now open."). Returns whether it did."""
        calls = self.result.tool_calls
        if asked_part(self.request) is not None or not calls:
            return False
        phrases = [
            did
            for record in calls
            if isinstance(did := record.result.get(DID_FIELD), DidPhrase)
            and not _failed(record)
        ]
        if len(phrases) < len(calls):
            return False
        await host.run_step(_say(did_reply(phrases, self.language), self))
        self.result.ended = "done"
        return True

    def _offer(self, tool: ToolSpec, reason: str) -> None:
        """Add a tool to this turn's allow-list, and say why."""
        self.tools[tool.name] = tool
        self.result.tool_reasons[tool.name] = reason

    async def _look_first(self, host: StepHost) -> bool:
        """Make the `look_first` calls before the model answers (small models
        answer questions about the home from nothing: "it is 22 degrees").
        Returns whether any ran, and all that ran worked."""
        records: list[ToolCallRecord] = []
        for name, args in self.look_first:
            if name not in self.tools:
                if (tool := _find_tool(name, self.catalogue)) is None:
                    continue
                self._offer(tool, "looked up first")
            self.call_count += 1
            delta = await self.guard(new_call(self.call_count, name, args))
            results = await host.run_step(_call_step(delta))
            records += self._record_calls([delta], results)
        return bool(records) and not any(_failed(record) for record in records)

    def _planned_call(self, step: PlanStep) -> ToolCall | None:
        """The concrete call of a plan step, if the request backs it: an offered
        tool the router also picks for these words, arguments made of the
        user's own words, valid for the tool's schema."""
        tool = self.tools.get(step.action)
        if (
            tool is None
            or step.arguments is None
            or not fits(tool, self.request)
            or not grounded(step.arguments, self.request)
        ):
            return None
        self.call_count += 1
        call, problem = self.resolve(
            new_call(self.call_count, tool.name, step.arguments)
        )
        return None if problem else call

    def _summary(self) -> str:
        """The summary instruction, grounded in what the tools really did."""
        outcomes = "; ".join(
            f"{record.name}: "
            + (
                str(record.result.get("error_text") or "failed")
                if _failed(record)
                else "ok"
            )
            for record in self.result.tool_calls[-6:]
        )
        return f"{SUMMARY_INSTRUCTION} Tool outcomes: {outcomes}."

    def _record_calls(
        self, calls: Sequence[ToolCallDelta], results: Mapping[str, JsonObject]
    ) -> list[ToolCallRecord]:
        self.messages.append(
            Message("assistant", tool_calls=[delta.call for delta in calls])
        )
        records: list[ToolCallRecord] = []
        for delta in calls:
            result = delta.answer or results.get(
                delta.call.id,
                {"error": "no_result", "error_text": "Tool gave no result."},
            )
            if delta.answer is None:
                self.seen_calls[_call_key(delta.call)] = result
            record = ToolCallRecord(
                delta.call.name,
                delta.call.arguments,
                result,
                answered_by_engine=delta.answer is not None,
            )
            records.append(record)
            self.result.tool_calls.append(record)
            content = tool_result_text(
                result,
                source=delta.call.name,
                request=_call_words(self.request, delta.call.arguments),
                limit=self.digest_limit,
            )
            self.messages.append(
                Message(
                    "tool", content, tool_call_id=delta.call.id, name=delta.call.name
                )
            )
        return records

    async def _end_with_final_reply(
        self, host: StepHost, records: Sequence[ToolCallRecord]
    ) -> bool:
        """Say the final reply a tool result gave, word for word, and end the
        turn (the last one, if several did): no model call may reword it."""
        replies = [text for record in records if (text := final_reply(record.result))]
        if not replies:
            return False
        await host.run_step(_say(replies[-1], self))
        self.result.ended = "final_reply"
        return True

    async def _final_reply(
        self,
        host: StepHost,
        instruction: str,
        ended: str,
        purpose: str | None = None,
    ) -> None:
        """One tool-free call that must end in plain words, else a fixed reply."""
        if purpose is None:
            purpose = "repair" if instruction == REPAIR_INSTRUCTION else "summary"
        step = _Step(
            self, tools_offered=False, instruction=instruction, purpose=purpose
        )
        await host.run_step(step.deltas())
        if step.outcome == "junk":
            await host.run_step(_say(self._fallback_text(), self))
        self.result.ended = ended if step.outcome != "llm_error" else "llm_error"

    def _fallback_text(self) -> str:
        """What to say when the model cannot: "Done." only if every call worked."""
        calls = self.result.tool_calls
        succeeded = bool(calls) and not any(_failed(record) for record in calls)
        return phrase(DONE if succeeded else NOT_UNDERSTOOD, self.language)

    async def check_call(self, name: str, args: JsonObject) -> ToolCallDelta:
        """Turn a call the model made into a delta, answering bad calls with errors."""
        self.call_count += 1
        call = new_call(self.call_count, normalize_tool_name(name), args)
        return await self.guard(call)

    def _tool_search(self, call: ToolCall) -> ToolCallDelta:
        """Widen this turn's tools with the best matches for the model's query."""
        self.searches += 1
        if self.searches > MAX_TOOL_SEARCHES:
            return ToolCallDelta(
                call,
                {
                    "error": "search_limit",
                    "error_text": "No more tool searches in this reply; use the "
                    "listed tools or answer the user.",
                },
            )
        unseen = [tool for tool in self.catalogue if tool.name not in self.tools]
        found = ToolRouter().search(str(call.arguments.get("query", "")), unseen)
        for tool in found:
            self._offer(tool, "tool search")
        return ToolCallDelta(
            call,
            {
                "tools": [
                    {"name": tool.name, "description": tool.description}
                    for tool in found
                ],
                "note": "These tools can be called now."
                if found
                else "No other tool fits; answer with what you have.",
            },
        )

    async def guard(self, call: ToolCall) -> ToolCallDelta:
        """Answer unknown tools, invalid arguments and repeats with a tool error."""
        call, problem = self.resolve(call)
        if problem is not None:
            return ToolCallDelta(call, problem)
        if call.name == TOOL_SEARCH:
            return self._tool_search(call)
        if _call_key(call) in self.seen_calls:
            return ToolCallDelta(
                call,
                {
                    "error": "repeated_call",
                    "error_text": f"{call.name} was already called with these "
                    "arguments and its result is above. Use that result to "
                    "answer the user; do not call it again.",
                },
            )
        memory = self.loop._memory
        if memory is not None and call.name in {t.name for t in MEMORY_TOOLS}:
            return ToolCallDelta(
                call,
                await memory.answer_tool(
                    self.user, call.name, call.arguments, self.request
                ),
            )
        return ToolCallDelta(call)

    def resolve(self, call: ToolCall) -> tuple[ToolCall, JsonObject | None]:
        """The call with the offered tool's name and repaired arguments, and the
        error that answers it when there is no such tool or they do not fit."""
        name = normalize_tool_name(call.name)
        tool = _find_tool(name, self.tools.values())
        # A tool the router left out but the model knows by name: what a
        # tool_search would have offered, so it costs one search.
        if (
            tool is None
            and self.searches < MAX_TOOL_SEARCHES
            and (tool := _find_tool(name, self.catalogue)) is not None
        ):
            self.searches += 1
            self._offer(tool, "called by name")
        if tool is None:
            valid = ", ".join(self.tools) or "none"
            return call, {
                "error": "unknown_tool",
                "error_text": f"There is no tool named '{call.name}'. "
                f"Valid tools: {valid}.",
            }
        if tool.name == TOOL_SEARCH:
            return ToolCall(call.id, tool.name, call.arguments), None
        args = repair_arguments(
            tool, {k: v for k, v in call.arguments.items() if v is not None and v != ""}
        )
        call = ToolCall(call.id, tool.name, args)
        if problem := validate_arguments(tool, args):
            return call, {
                "error": "invalid_arguments",
                "error_text": f"{tool.name}: {problem}.",
            }
        return call, None


_STOP_RE = re.compile(
    r"^\W*(?:stop|cancel|never ?mind|forget it|that's all|"
    r"stopp|halt|abbrechen|vergiss es|egal|"
    r"para|detente|cancela|olvídalo|déjalo|"
    r"arrête|annule|laisse tomber|oublie ça)\W*$",
    re.IGNORECASE,
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


def _temperature(settings: LoopSettings) -> float | None:
    """Small models pick tools and arguments far more reliably greedily; servers
    otherwise sample at their default (llama.cpp: 0.8)."""
    if settings.temperature is not None:
        return settings.temperature
    return 0.0 if is_small_model(settings.model) else None


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


def _failed_last_turn(history: Sequence[Message]) -> list[str]:
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
        words = _call_words(request, arguments.get(message.tool_call_id or "", {}))
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


def _call_words(request: str, arguments: JsonObject) -> str:
    """What a tool result is matched against: the request and the call's values."""
    values = " ".join(str(value) for value in arguments.values())
    return f"{request} {values}"


def _call_step(delta: ToolCallDelta) -> AsyncIterator[Delta]:
    """A step that is one tool call the engine made itself."""

    async def deltas() -> AsyncIterator[Delta]:
        yield StepStart()
        yield delta

    return deltas()


def _find_tool(name: str, tools: Iterable[ToolSpec]) -> ToolSpec | None:
    """The tool a model meant; models copy namespaces loosely
    ("assistant__HassTurnOn" for HassTurnOn, "HassTurnOn" for "assist__HassTurnOn")."""
    bare = name.rsplit("__", 1)[-1].lower()
    return next(
        (
            tool
            for tool in tools
            if tool.name.lower() in (name.lower(), bare)
            or tool.name.lower().endswith(f"__{bare}")
        ),
        None,
    )


def _failed(record: ToolCallRecord) -> bool:
    return "error" in record.result or record.result.get("success") is False


def _call_key(call: ToolCall) -> str:
    return call.name + json.dumps(call.arguments, sort_keys=True, default=str)


async def _say(text: str, turn: _Turn) -> AsyncIterator[Delta]:
    turn.result.text += text
    async for delta in _say_text(text):
        yield delta


async def _say_text(text: str) -> AsyncIterator[Delta]:
    yield StepStart()
    yield TextDelta(text)


class _Step:
    """One LLM call: streams safe text, then the tool calls it made."""

    def __init__(
        self,
        turn: _Turn,
        *,
        tools_offered: bool,
        instruction: str | None = None,
        purpose: str = "step",
    ) -> None:
        self._turn = turn
        self._tools_offered = tools_offered
        self._purpose = purpose
        self._timings: list[_Timing] = []
        self._protocol = "none"
        # Appended to this request only, never kept in the conversation.
        self._instruction = instruction
        self._native_calls: list[ToolCall] = []
        self.calls: list[ToolCallDelta] = []
        # ok | llm_error | junk
        self.outcome = "ok"

    async def deltas(self) -> AsyncIterator[Delta]:
        turn = self._turn
        yield StepStart()
        try:
            async for delta in self._stream():
                if isinstance(delta, TextDelta):
                    spoken = TextDelta(clean_for_speech(delta.text))
                    turn.result.text += spoken.text
                    yield spoken
                else:
                    yield delta
        except (LLMError, TimeoutError) as err:
            reason = str(err) or type(err).__name__
            _LOGGER.warning("LLM call failed: %s", reason)
            self.outcome = "llm_error"
            turn.result.error = reason
            apology = phrase(LLM_UNAVAILABLE, turn.language)
            turn.result.text += apology
            yield TextDelta(apology)
        finally:
            self._record_calls()

    def _record_calls(self) -> None:
        """One record per call made; a call the server refused tools on comes first."""
        last = len(self._timings) - 1
        for index, timing in enumerate(self._timings):
            usage = timing.usage or Usage(0, 0)
            self._turn.result.calls.append(
                LLMCallRecord(
                    self._purpose,
                    "native" if index < last else self._protocol,
                    len(self._turn.tools) if self._tools_offered else 0,
                    usage.prompt_tokens,
                    usage.completion_tokens,
                    timing.first_token_s,
                    timing.duration_s,
                    self.outcome if index == last else "tools_rejected",
                )
            )

    async def _stream(self) -> AsyncIterator[Delta]:
        turn = self._turn
        text_mode = turn.text_mode and self._tools_offered
        gate = ReleaseGate(veto=self._echoes_instruction)
        try:
            async for text in self._consume(
                await self._request(text_mode=text_mode), gate
            ):
                yield TextDelta(text)
        except LLMToolsRejectedError:
            if text_mode or not self._tools_offered:
                raise
            _LOGGER.info("Server rejected tools; switching to the text protocol")
            turn.loop._protocols.use_text(turn.loop._settings.model)
            turn.result.protocol_switch = "tools_rejected"
            text_mode = True
            gate = ReleaseGate(veto=self._echoes_instruction)
            async for text in self._consume(await self._request(text_mode=True), gate):
                yield TextDelta(text)
        if self._tools_offered:
            turn.result.protocol = "text" if text_mode else "native"
            self._protocol = turn.result.protocol
        _LOGGER.debug(
            "Model replied (%s): %r, native calls: %s",
            turn.result.protocol if self._tools_offered else "no tools",
            redact(gate.released + gate.held),
            self._native_calls,
        )

        parsed = parse_text_reply(strip_think(gate.held))
        if self._native_calls:
            self.calls = [await turn.guard(call) for call in self._native_calls]
        elif self._tools_offered and parsed.calls:
            if not text_mode:
                _LOGGER.info("Model wrote a tool call as text; using text protocol")
                turn.loop._protocols.use_text(turn.loop._settings.model)
                turn.result.protocol_switch = "call_as_text"
                turn.result.protocol = "text"
            self.calls = [
                await turn.check_call(name, args)
                for name, args in _distinct(parsed.calls)
            ]
        elif parsed.prose and not self._echoes_instruction(parsed.prose):
            yield TextDelta(_joined(gate.released, parsed.prose))
        elif not gate.released:
            self.outcome = "junk"
        for delta in self.calls:
            yield delta

    def _echoes_instruction(self, text: str) -> bool:
        return _echoes(text, self._instruction)

    async def _request(self, *, text_mode: bool) -> ChatRequest:
        """The request, refitted if the server's tokenizer finds it too long."""
        request = self._build_request(text_mode=text_mode)
        loop = self._turn.loop
        limit = (loop._settings.context_size or 0) - loop._settings.max_tokens
        if limit > 0 and await over_limit(
            loop._client, request, limit, loop._estimator
        ):
            request = self._build_request(text_mode=text_mode)
        return request

    def _build_request(self, *, text_mode: bool) -> ChatRequest:
        turn = self._turn
        settings = turn.loop._settings
        system = turn.system_prompt
        tools: list[ToolSpec] | None = None
        if self._tools_offered and not text_mode:
            tools = list(turn.tools.values())
        elif self._tools_offered:
            catalogue = render_tool_section(list(turn.tools.values()))
            system = f"{system}\n\n{catalogue}"
        messages = self._fitted(system, tools)
        if not tools:
            messages = render_messages_for_text_protocol(messages)
        if settings.redact_prompts:
            messages = [
                Message(m.role, redact(m.content), m.tool_calls, m.tool_call_id, m.name)
                if m.role == "user"
                else m
                for m in messages
            ]
        if self._instruction:
            messages = [*messages, Message("user", self._instruction)]
        return ChatRequest(
            model=settings.model,
            messages=[Message("system", system), *messages],
            tools=tools,
            max_tokens=settings.max_tokens,
            num_ctx=settings.num_ctx,
            keep_alive=settings.keep_alive,
            think=settings.think,
            temperature=_temperature(settings),
        )

    def _fitted(self, system: str, tools: list[ToolSpec] | None) -> list[Message]:
        """The turn's messages within the context budget (on engine messages, so
        tool groups stay whole whatever protocol renders them)."""
        turn = self._turn
        settings = turn.loop._settings
        if not settings.context_size:
            return list(turn.messages)
        fitted = fit(
            system,
            turn.messages,
            tools or (),
            budget=settings.context_size - settings.max_tokens - BUDGET_MARGIN_TOKENS,
            estimator=turn.loop._estimator,
        )
        result = turn.result
        result.shortened_results = max(
            result.shortened_results, fitted.shortened_results
        )
        result.summarised_turns = max(result.summarised_turns, fitted.summarised_turns)
        return fitted.messages

    async def _consume(
        self, request: ChatRequest, gate: ReleaseGate
    ) -> AsyncIterator[str]:
        """Stream one call, yielding text the gate releases.

        The timeout bounds each wait for the server (the first token included,
        which on a CPU can take a minute for a long prompt); `max_tokens` bounds
        the rest. It wraps each read, never a yield, so it cancels only the
        HTTP read (closing the stream) and not the consumer.
        """
        turn = self._turn
        turn.result.llm_calls += 1
        think = ThinkFilter()
        started = time.monotonic()
        first: float | None = None
        usage: Usage | None = None
        try:
            async with aclosing(turn.loop._client.chat_stream(request)) as stream:
                chunks = aiter(stream)
                while True:
                    async with asyncio.timeout(turn.loop._settings.call_timeout):
                        try:
                            chunk = await anext(chunks)
                        except StopAsyncIteration:
                            break
                    if first is None and (chunk.content or chunk.tool_calls):
                        first = time.monotonic() - started
                    self._native_calls.extend(chunk.tool_calls)
                    if chunk.usage:
                        usage = chunk.usage
                        self._count_usage(request, chunk.usage)
                    if chunk.content and (
                        released := gate.feed(think.feed(chunk.content))
                    ):
                        yield released
            if released := gate.feed(think.flush()):
                yield released
        finally:
            self._timings.append(_Timing(first, time.monotonic() - started, usage))

    def _count_usage(self, request: ChatRequest, usage: Usage) -> None:
        turn = self._turn
        turn.result.prompt_tokens += usage.prompt_tokens
        turn.result.completion_tokens += usage.completion_tokens
        turn.loop._estimator.calibrate(
            prompt_chars(
                request.messages[0].content, request.messages[1:], request.tools or ()
            ),
            usage.prompt_tokens,
        )


def _distinct(calls: Sequence[tuple[str, JsonObject]]) -> list[tuple[str, JsonObject]]:
    """One of each call: small models sometimes write the same call several times."""
    seen: set[str] = set()
    distinct = []
    for name, args in calls:
        key = name + json.dumps(args, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            distinct.append((name, args))
    return distinct


def _echoes(reply: str, instruction: str | None) -> bool:
    """Whether a reply parrots the engine's own instruction (small models do)."""
    if not instruction:
        return False
    words = re.findall(r"\w+", instruction.lower())
    said = " ".join(re.findall(r"\w+", reply.lower()))
    return any(
        " ".join(words[i : i + 4]) in said for i in range(max(0, len(words) - 3))
    )


def _joined(released: str, more: str) -> str:
    """Continue already-shown text with the rest of the reply."""
    return more if not released or released.endswith((" ", "\n")) else f" {more}"
