"""One model step: an LLM call that streams safe text, then its tool calls."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import replace
import json
import time
from typing import Protocol

from ..budget import fit, over_limit, prompt_chars
from ..grounding import Grounded
from ..llm.base import ChatRequest, LLMError, LLMToolsRejectedError, Usage
from ..output import ReleaseGate, RepetitionGuard, ThinkFilter, strip_think
from ..phrases import LLM_UNAVAILABLE, phrase
from ..redact import redact, redacting_logger
from ..speech import clean_for_speech
from ..text import lower_words
from ..textproto import (
    cut_call,
    find_tool,
    one_value,
    parse_text_reply,
    render_messages_for_text_protocol,
    render_tool_section,
)
from ..types import JsonObject, Message, ToolCall, ToolSpec
from .host import Delta, StepStart, TextDelta, ToolCallDelta
from .records import (
    CallProtocol,
    LLMCallRecord,
    Purpose,
    StepEnd,
    Timing,
    TurnResult,
)
from .settings import Engine, sampling

_LOGGER = redacting_logger(__name__)

# Room for what is added after fitting: protocol wrappers, an instruction.
BUDGET_MARGIN_TOKENS = 192


class StepTurn(Protocol):
    """What a step needs of its turn."""

    engine: Engine
    system_prompt: str
    messages: list[Message]
    tools: dict[str, ToolSpec]
    language: str | None
    result: TurnResult
    # The tool the text protocol's example call is one of.
    lead_tool: str | None
    # No tool's words in the request: tools were shown only in case.
    chit_chat: bool

    @property
    def text_mode(self) -> bool:
        """Whether the model is on the text tool protocol."""

    def shown_tools(self) -> list[ToolSpec]:
        """The tools the model is shown when tools are offered."""

    def note(self) -> str:
        """What this turn adds at the end of the messages."""

    def knows(self, name: str) -> bool:
        """Whether a tool of this name is offered or in the catalogue."""

    async def guard(self, call: ToolCall) -> ToolCallDelta:
        """A native call, checked."""

    async def check_call(self, name: str, args: JsonObject) -> ToolCallDelta:
        """A call written as text, checked."""

    def ground(self, text: str) -> Grounded:
        """Whole sentences of the reply, checked against the home."""


class ModelStep:
    """One LLM call: streams safe text, then the tool calls it made."""

    def __init__(
        self,
        turn: StepTurn,
        *,
        tools_offered: bool,
        instruction: str | None = None,
        purpose: Purpose = "step",
        alone: str | None = None,
    ) -> None:
        self._turn = turn
        self._tools_offered = tools_offered
        self._purpose = purpose
        self._timings: list[Timing] = []
        self._protocol: CallProtocol = "none"
        # Appended to this request only, never kept in the conversation.
        self._instruction = instruction
        # A command of the request, asked in its place (`asked_alone`).
        self._alone = alone
        self._native_calls: list[ToolCall] = []
        # Checked text from a claim of an action not done yet on (`_checked`).
        self._held: list[str] = []
        self.calls: list[ToolCallDelta] = []
        self.outcome: StepEnd = "ok"
        # The stream was closed on a reply repeating itself.
        self._repeating = False

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
                    usage.cached_tokens,
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
                if checked := self._checked(text):
                    yield TextDelta(checked)
        except LLMToolsRejectedError:
            if text_mode or not self._tools_offered:
                raise
            _LOGGER.info("Server rejected tools; switching to the text protocol")
            turn.engine.protocols.use_text(turn.engine.settings.model)
            turn.result.protocol_switch = "tools_rejected"
            text_mode = True
            gate = ReleaseGate(veto=self._echoes_instruction)
            self._held = []
            async for text in self._consume(await self._request(text_mode=True), gate):
                if checked := self._checked(text):
                    yield TextDelta(checked)
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
        if not parsed.calls and (looped := self._looped_call(gate.held)):
            parsed = replace(parsed, calls=[looped])
        if turn.chit_chat:
            # Shown tools only in case, a model that calls one no catalogue
            # has ("SayHello" for "say hello to Anna") meant to reply.
            parsed = replace(
                parsed, calls=[c for c in parsed.calls if turn.knows(c[0])]
            )
        if self._native_calls:
            # The same call twice in one step runs once (text calls too, below).
            native: dict[str, ToolCall] = {}
            for call in self._native_calls:
                native.setdefault(call_key(call.name, call.arguments), call)
            self.calls = [await turn.guard(call) for call in native.values()]
        elif self._tools_offered and parsed.calls:
            if not text_mode:
                _LOGGER.info("Model wrote a tool call as text; using text protocol")
                turn.engine.protocols.use_text(turn.engine.settings.model)
                turn.result.protocol_switch = "call_as_text"
                turn.result.protocol = "text"
            self.calls = [
                await turn.check_call(name, args)
                for name, args in _distinct(parsed.calls)
            ]
        elif parsed.prose and not self._echoes_instruction(parsed.prose):
            prose = turn.ground(_joined(gate.released, parsed.prose)).text
            yield TextDelta("".join(self._held) + prose)
        elif self._held:
            yield TextDelta("".join(self._held))
        elif not gate.released:
            # A call cut off in a repetition loop is not asked for again (see
            # `rule`); other junk is asked for in words.
            cut = self._repeating and self._tools_offered and parsed.had_call_syntax
            self.outcome = "cut" if cut else "junk"
        for delta in self.calls:
            yield delta

    def _looped_call(self, held: str) -> tuple[str, JsonObject] | None:
        """The call a reply cut off in a loop was writing, if the argument it
        looped in is one its tool does not take, or an optional one with one
        allowed value: dropping that cannot widen what the call does (0.5B
        looped "Despacho" into a to-do add's made-up "domain", and door
        classes into HassVacuumStart's, which only says "vacuum")."""
        if not (self._repeating and self._tools_offered):
            return None
        if (cut := cut_call(strip_think(held))) is None:
            return None
        name, args, looped_in = cut
        if (tool := find_tool(name, self._turn.tools.values())) is None:
            return None
        properties = tool.parameters.get("properties") or {}
        required = tool.parameters.get("required") or ()
        if looped_in in properties and (
            looped_in in required or not one_value(properties[looped_in])
        ):
            return None
        return name, args

    def _checked(self, text: str) -> str:
        """Released text as it may be said (`StepTurn.ground`). From a claim
        of an action no call has done yet on ("I've turned on the lights."
        before the call), it is held until the step ends: said, put right,
        if the step makes no call, and dropped if it does (the call's result
        then tells what was done)."""
        checked = self._turn.ground(text)
        if self._held or (checked.undone and self._tools_offered):
            self._held.append(checked.text)
            return ""
        return checked.text

    def _echoes_instruction(self, text: str) -> bool:
        return _echoes(text, self._instruction)

    async def _request(self, *, text_mode: bool) -> ChatRequest:
        """The request, refitted if the server's tokenizer finds it too long."""
        request = self._build_request(text_mode=text_mode)
        engine = self._turn.engine
        limit = (
            engine.settings.context_size or 0
        ) - engine.settings.sampling.max_tokens
        if limit > 0 and await over_limit(
            engine.client, request, limit, engine.estimator
        ):
            request = self._build_request(text_mode=text_mode)
        return request

    def build_request(self) -> ChatRequest:
        """The request as the step would send it, unrefitted."""
        return self._build_request(text_mode=self._turn.text_mode)

    def _build_request(self, *, text_mode: bool) -> ChatRequest:
        turn = self._turn
        settings = turn.engine.settings
        system = turn.system_prompt
        shown = turn.shown_tools()
        tools: list[ToolSpec] | None = None
        if shown and self._tools_offered and not text_mode:
            tools = shown
        elif shown and (text_mode or turn.text_mode):
            # A tool-free step on the text protocol keeps the turn's tool
            # section, so the server's cache keeps the prompt's start (its
            # reply is read as words only): 0.5B re-read 300 tokens of tool
            # lines on a 2-core CPU after each answer step.
            system = f"{system}\n\n{render_tool_section(shown, turn.lead_tool)}"
        fitted = self._fitted(system, tools)
        if self._alone:
            fitted = asked_alone(fitted, self._alone)
        messages = with_context(fitted, turn.note())
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
            sampling=sampling(settings),
            num_ctx=settings.num_ctx,
            keep_alive=settings.keep_alive,
            think=settings.think,
        )

    def _fitted(self, system: str, tools: list[ToolSpec] | None) -> list[Message]:
        """The turn's messages within the context budget (on engine messages, so
        tool groups stay whole whatever protocol renders them)."""
        turn = self._turn
        settings = turn.engine.settings
        if not settings.context_size:
            return list(turn.messages)
        fitted = fit(
            system,
            turn.messages,
            tools or (),
            budget=settings.context_size
            - settings.sampling.max_tokens
            - BUDGET_MARGIN_TOKENS,
            estimator=turn.engine.estimator,
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
        repeating = RepetitionGuard()
        started = time.monotonic()
        first: float | None = None
        usage: Usage | None = None
        try:
            async with aclosing(turn.engine.client.chat_stream(request)) as stream:
                chunks = aiter(stream)
                while True:
                    async with asyncio.timeout(turn.engine.settings.call_timeout):
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
                    if chunk.content and repeating.feed(chunk.content):
                        self._repeating = True
                        break  # closing the stream frees the server
            if released := gate.feed(think.flush()):
                yield released
        finally:
            self._timings.append(Timing(first, time.monotonic() - started, usage))

    def _count_usage(self, request: ChatRequest, usage: Usage) -> None:
        turn = self._turn
        turn.result.prompt_tokens += usage.prompt_tokens
        turn.result.completion_tokens += usage.completion_tokens
        turn.engine.estimator.calibrate(
            prompt_chars(
                request.messages[0].content, request.messages[1:], request.tools or ()
            ),
            usage.prompt_tokens,
        )


CONTEXT_HEADER = "Context of this request, from Jarvis:"


def asked_alone(messages: Sequence[Message], command: str) -> list[Message]:
    """The messages with one command of the request asked in the request's
    place, and this turn's calls left out: shown its call for the part done
    and told to do the rest, 0.5B made the same call again."""
    index = _last_user(messages)
    kept = messages[:index] if index is not None else messages
    return [*kept, Message("user", command)]


def _last_user(messages: Sequence[Message]) -> int | None:
    return next(
        (i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"),
        None,
    )


def with_context(messages: Sequence[Message], note: str) -> list[Message]:
    """The messages with the turn's context put before the request's words:
    at the end, after everything the server has cached."""
    index = _last_user(messages)
    if not note or index is None:
        return list(messages)
    request = messages[index]
    said = Message("user", f"{CONTEXT_HEADER}\n{note}\n\n{request.content}")
    return [*messages[:index], said, *messages[index + 1 :]]


def call_key(name: str, arguments: JsonObject) -> str:
    """What makes two calls the same call."""
    return name + json.dumps(arguments, sort_keys=True, default=str)


def _distinct(calls: Sequence[tuple[str, JsonObject]]) -> list[tuple[str, JsonObject]]:
    """One of each call: small models sometimes write the same call several times."""
    distinct: dict[str, tuple[str, JsonObject]] = {}
    for name, args in calls:
        distinct.setdefault(call_key(name, args), (name, args))
    return list(distinct.values())


def _echoes(reply: str, instruction: str | None) -> bool:
    """Whether a reply parrots the engine's own instruction (small models do)."""
    if not instruction:
        return False
    words = lower_words(instruction)
    said = " ".join(lower_words(reply))
    return any(
        " ".join(words[i : i + 4]) in said for i in range(max(0, len(words) - 3))
    )


def _joined(released: str, more: str) -> str:
    """Continue already-shown text with the rest of the reply."""
    return more if not released or released.endswith((" ", "\n")) else f" {more}"
