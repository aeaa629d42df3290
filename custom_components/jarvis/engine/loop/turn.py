"""One user turn: look first, run the plan, then model steps, under one rule."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache, partial

from ..arguments import backed_by_request, fitting_tool, with_said_step
from ..digest import MAX_RAW_CHARS, tool_result_text
from ..echo import SmallTalk
from ..grounding import Grounded, HouseView, apologized, ground
from ..memory import MEMORY_TOOLS
from ..output import sentences
from ..phrases import (
    DID_FIELD,
    NOT_UNDERSTOOD,
    DidPhrase,
    did_reply,
    final_reply,
    phrase,
)
from ..planner import Plan
from ..redact import redact, redacting_logger
from ..results import (
    INVALID_ARGUMENTS,
    REPEATED_CALL,
    UNKNOWN_TOOL,
    failed,
    took_words_for_a_device,
)
from ..router import (
    TOOL_SEARCH,
    ToolRouter,
    command_part,
    is_question,
    joins_commands,
)
from ..textproto import (
    find_tool,
    loosely_named,
    new_call,
    normalize_tool_name,
    repair_arguments,
    validate_arguments,
)
from ..types import JsonObject, Message, ToolCall, ToolSpec
from ..which_answer import calls_for
from .done import (
    can_say_done,
    done_calls,
    fallback_text,
    first_of_mixed,
    found,
    next_part_asked,
    part_left,
    unasked_calls,
)
from .host import Delta, StepHost, ToolCallDelta, call_step, say_text
from .instructions import (
    ANSWER_INSTRUCTION,
    COMMAND_INSTRUCTION,
    PLAIN_REPLY_INSTRUCTION,
    in_language,
    summary_instruction,
)
from .planned import run_answered, run_plan
from .records import Ended, Purpose, StepEnd, ToolCallRecord, TurnResult, call_words
from .rule import AfterStep, StepOutcome, next_step
from .settings import Engine
from .step import ModelStep, call_key

_LOGGER = redacting_logger(__name__)

MAX_TOOL_SEARCHES = 2  # per reply


# A tool call by name and arguments.
type LookUp = tuple[str, JsonObject]


@dataclass
class Turn:
    """One user turn: its prompt, messages, offered tools and what it did."""

    engine: Engine
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
    # What belongs to this turn only, said with the request (see `ReplyLoop.run`).
    context: list[str] = field(default_factory=list)
    # The live home the reply's claims are checked against; None: unchecked.
    house: HouseView | None = None
    # The tool the request points to most: small models copy the shape of
    # the text protocol's example call, so it is one of this tool.
    lead_tool: str | None = None
    # No tool's words in the request: it was shown the core tools only in
    # case it needs them.
    chit_chat: bool = False
    # What a step shows on the text protocol where the turn offers no tools
    # (small talk): the warm-up's tools, so the server's cache keeps the
    # prompt's start for the next command. Its reply is read as words only.
    idle_tools: list[ToolSpec] = field(default_factory=list)
    # Small talk, whose reply is not to say the user's words back (`echo`).
    small_talk: SmallTalk | None = None
    # A sentence of the reply was put right as an apology (`ground`).
    apologized: bool = False
    # The calls before this one were joined commands mixed into failing
    # calls, each command since asked alone: what the turn did is after.
    standing_from: int = 0

    @property
    def standing_calls(self) -> list[ToolCallRecord]:
        """The turn's calls that tell what it did (`standing_from`)."""
        return self.result.tool_calls[self.standing_from :]

    @property
    def text_mode(self) -> bool:
        return self.engine.protocols.is_text(self.engine.settings.model)

    def knows(self, name: str) -> bool:
        """Whether a tool of this name is offered or in the catalogue."""
        name = normalize_tool_name(name)
        return (
            find_tool(name, self.tools.values()) is not None
            or find_tool(name, self.catalogue) is not None
        )

    def shown_tools(self) -> list[ToolSpec]:
        """The offered tools, in the order they were offered; else the idle
        tools, on the text protocol."""
        if self.tools or not self.text_mode:
            return list(self.tools.values())
        return list(self.idle_tools)

    def note(self) -> str:
        """This turn's context, said with the request."""
        return "\n".join(self.context)

    def ground(self, text: str) -> Grounded:
        """The model's sentences, each false claim about the home replaced
        with the truth (`grounding`), read against the home as it is now and
        the results of the turn's successful calls; one that reads a failed
        call's error code or text out is a plain apology (`apologized`)."""
        if self.small_talk:
            text = "".join(map(self.small_talk.said, sentences(text)))
        calls = [r.result for r in self.result.tool_calls]
        failures = [r for r in calls if failed(r)]
        codes = {str(r["error"]) for r in failures if r.get("error")}
        texts = [str(r["error_text"]) for r in failures if r.get("error_text")]
        if self.house is None and not failures:
            return Grounded(text)
        done = [r for r in calls if not failed(r)]
        # Read once for all the sentences of this text, and only if one
        # claims something.
        home = cache(partial(self.house, done)) if self.house else None
        checked: list[Grounded] = []
        for sentence in sentences(text):
            if apology := apologized(sentence, codes, texts, self.language):
                # Once: 0.5B read out both sentences of an error text.
                checked.append(Grounded("") if self.apologized else apology)
                self.apologized = True
            else:
                checked.append(
                    ground(sentence, self.language, home)
                    if home
                    else Grounded(sentence)
                )
        grounded = Grounded(
            "".join(sentence.text for sentence in checked),
            undone=any(sentence.undone for sentence in checked),
        )
        if grounded.text != text:
            _LOGGER.info(
                "Reply put right: %r for %r", redact(grounded.text), redact(text)
            )
        return grounded

    async def run(self, host: StepHost) -> None:
        """Make the call a "which one?" was answered for, or look first, run
        the plan, then model steps until the rule ends it."""
        if await run_answered(self, host):
            return
        looked = await self._look_first(host)
        if looked and await self._say_what_was_found(host):
            return
        if self.text_mode and self.plan.tools and await run_plan(self, host):
            return
        # Text-protocol models re-shown their tools repeat the call: ask for
        # the answer once a question has what it needs.
        answer = looked and self.text_mode and is_question(self.request)
        nudge: str | None = None
        if looked and (command := command_part(self.request)):
            # With the asked-about states in front of it, 1.5B answered the
            # question and left the command ("dim the bed light") undone.
            nudge = COMMAND_INSTRUCTION.format(command=command)
        elif not self.tools and self.shown_tools():
            # Shown the idle tools, 0.5B wrote a call for "good night" in two
            # replies of four, and each took a repair call.
            nudge = in_language(PLAIN_REPLY_INSTRUCTION, self.language)
        alone: str | None = None
        asked_alone = False
        failed_steps = 0
        asked_at = len(self.messages)
        steps = max(1, self.engine.settings.max_turns)
        for index in range(steps):
            step = ModelStep(
                self,
                tools_offered=bool(self.tools) and not answer,
                instruction=in_language(ANSWER_INSTRUCTION, self.language)
                if answer
                else nudge,
                purpose="answer" if answer else "step",
                alone=alone,
            )
            with calls_for(alone):
                results = await host.run_step(step.deltas())
            alone = None
            records = self.record_calls(step.calls, results) if step.calls else []
            if records:
                all_failed = all(failed(r.result) for r in records)
                failed_steps = failed_steps + 1 if all_failed else 0
            done = [r.name for r in self.result.tool_calls if not failed(r.result)]
            planned = self.plan.next_after(done)
            mixed = (
                first_of_mixed(records, done, self.request, self.language)
                if self.text_mode and not asked_alone
                else None
            )
            if mixed:
                self.standing_from = len(self.result.tool_calls)
            # 0.5B makes one call per reply on the text protocol.
            calls = self.standing_calls
            part = mixed or (
                part_left(calls, self.request, self.language)
                if self.text_mode
                else None
            )
            after = AfterStep(
                outcome=_outcome(step.outcome, records),
                final_reply=any(final_reply(r.result) for r in records),
                failed_steps=failed_steps,
                text_mode=self.text_mode,
                clean=not any(
                    failed(r.result) or r.name == TOOL_SEARCH for r in records
                ),
                planned=planned is not None,
                can_say_done=can_say_done(calls, self.request, self.language),
                one_command=not joins_commands(self.request, self.language),
                part_left=part is not None,
                fumbled_parts=mixed is not None,
                mistook_words=self.chit_chat
                and bool(records)
                and all(
                    took_words_for_a_device(r.result, r.arguments, self.request)
                    for r in records
                ),
                unasked_calls=bool(records)
                and unasked_calls(self.result.tool_calls, self.messages, self.house),
                question=is_question(self.request),
                steps_left=steps - index - 1,
            )
            match next_step(after):
                case "end":
                    return
                case "llm_error":
                    self.result.ended = "llm_error"
                    return
                case "repair" | "reply_instead" as kind:
                    if kind == "reply_instead":
                        # Answered as if no call was made: "What's 12 times
                        # 7?" looked up "12 * 7" in the home.
                        del self.messages[asked_at:]
                    await self._final_reply(
                        host,
                        in_language(PLAIN_REPLY_INSTRUCTION, self.language),
                        "done" if kind == "reply_instead" else "not_understood",
                        purpose="repair",
                    )
                    return
                case "not_understood":
                    if not await self._say_what_was_done(host):
                        text = phrase(NOT_UNDERSTOOD, self.language)
                        await host.run_step(say(text, self))
                        self.result.ended = "not_understood"
                    return
                case "say_final_reply":
                    await self.end_with_final_reply(host, records)
                    return
                case "give_up":
                    # Small models retry a failing call forever; stop and say so.
                    await self._final_reply(
                        host,
                        summary_instruction(self.result.tool_calls, self.language),
                        "tool_failures",
                    )
                    return
                case "say_done":
                    await self._say_what_was_done(host)
                    return
                case "out_of_steps":
                    await self._final_reply(
                        host,
                        summary_instruction(self.result.tool_calls, self.language),
                        "max_turns",
                    )
                    return
                case "next_plan_step":
                    assert planned is not None
                    answer = False
                    nudge = f"Next step of the plan: {planned.action}" + (
                        f" ({planned.detail})" if planned.detail else ""
                    )
                case "next_part":
                    assert part is not None
                    answer, asked_alone = False, True
                    alone, nudge = next_part_asked(part, self.language)
                case "answer" | "step" as kind:
                    answer, nudge = kind == "answer", None

    async def say_done(self, host: StepHost) -> None:
        """Say what the calls did, in Jarvis's words or else the model's."""
        if not await self._say_what_was_done(host):
            await self._final_reply(
                host,
                in_language(ANSWER_INSTRUCTION, self.language),
                "done",
                purpose="answer",
            )

    async def _say_what_was_done(self, host: StepHost) -> bool:
        """End a command's turn by saying what its actions did, in Jarvis's
        words, when each says. Returns whether it did."""
        calls = self.standing_calls
        if not can_say_done(calls, self.request, self.language):
            return False
        phrases = [
            DidPhrase(record.result[DID_FIELD])
            for record in done_calls(calls, self.request, self.language)
            if DID_FIELD in record.result
        ]
        text = " ".join([did_reply(phrases, self.language), *found(calls)])
        await host.run_step(say(text, self))
        self.result.ended = "done"
        return True

    async def _say_what_was_found(self, host: StepHost) -> bool:
        """Answer a question in Jarvis's words when each look-up says in full
        what it found (a `FoundPhrase`), and nothing else was asked for.
        Returns whether it did."""
        calls = self.result.tool_calls
        said = found(calls)
        if (
            not said
            or len(said) < len(calls)
            or joins_commands(self.request, self.language)
        ):
            return False
        await host.run_step(say(" ".join(said), self))
        self.result.ended = "done"
        return True

    def offer(self, tool: ToolSpec, reason: str) -> None:
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
                if (tool := find_tool(name, self.catalogue)) is None:
                    continue
                self.offer(tool, "looked up first")
            self.call_count += 1
            delta = await self.guard(new_call(self.call_count, name, args))
            results = await host.run_step(call_step(delta))
            records += self.record_calls([delta], results)
        return bool(records) and not any(failed(record.result) for record in records)

    def record_calls(
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
                self.seen_calls[call_key(delta.call.name, delta.call.arguments)] = (
                    result
                )
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
                request=call_words(self.request, delta.call.arguments),
                limit=self.digest_limit,
            )
            self.messages.append(
                Message(
                    "tool", content, tool_call_id=delta.call.id, name=delta.call.name
                )
            )
        return records

    async def end_with_final_reply(
        self, host: StepHost, records: Sequence[ToolCallRecord]
    ) -> bool:
        """Say the final reply a tool result gave, word for word, and end the
        turn (the last one, if several did): no model call may reword it."""
        replies = [text for record in records if (text := final_reply(record.result))]
        if not replies:
            return False
        await host.run_step(say(replies[-1], self))
        self.result.ended = "final_reply"
        return True

    async def _final_reply(
        self,
        host: StepHost,
        instruction: str,
        ended: Ended,
        purpose: Purpose = "summary",
    ) -> None:
        """One tool-free call that must end in plain words, else a fixed reply."""
        step = ModelStep(
            self, tools_offered=False, instruction=instruction, purpose=purpose
        )
        await host.run_step(step.deltas())
        if step.outcome == "junk":
            await host.run_step(
                say(
                    fallback_text(self.result.tool_calls, self.request, self.language),
                    self,
                )
            )
        self.result.ended = ended if step.outcome != "llm_error" else "llm_error"

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
            self.offer(tool, "tool search")
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
        if call_key(call.name, call.arguments) in self.seen_calls:
            return ToolCallDelta(
                call,
                {
                    "error": REPEATED_CALL,
                    "error_text": f"{call.name} was already called with these "
                    "arguments and its result is above. Use that result to "
                    "answer the user; do not call it again.",
                },
            )
        memory = self.engine.memory
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
        tool = find_tool(name, self.tools.values())
        # A tool the router left out but the model knows by name: what a
        # tool_search would have offered, so it costs one search.
        if (
            tool is None
            and self.searches < MAX_TOOL_SEARCHES
            and (tool := find_tool(name, self.catalogue)) is not None
        ):
            self.searches += 1
            self.offer(tool, "called by name")
        if tool is None:
            tool = loosely_named(name, self.tools.values())
        if tool is None:
            valid = ", ".join(self.tools) or "none"
            return call, {
                "error": UNKNOWN_TOOL,
                "error_text": f"There is no tool named '{call.name}'. "
                f"Valid tools: {valid}.",
            }
        if tool.name == TOOL_SEARCH:
            return ToolCall(call.id, tool.name, call.arguments), None
        given = {k: v for k, v in call.arguments.items() if v is not None and v != ""}
        if (
            fitting := fitting_tool(
                tool,
                given,
                self.tools.values(),
                self.request,
                self.language,
                catalogue=self.catalogue,
            )
        ) != tool:
            _LOGGER.info("%s's arguments are %s's", tool.name, fitting.name)
            tool = fitting
            if tool.name not in self.tools:
                self.offer(tool, "takes the step said")
            taken = tool.parameters.get("properties") or {}
            given = {k: v for k, v in given.items() if k in taken}
        args = backed_by_request(
            tool, repair_arguments(tool, given), self.request, self.language
        )
        args = with_said_step(tool, args, self.request, self.language)
        call = ToolCall(call.id, tool.name, args)
        if problem := validate_arguments(tool, args):
            return call, {
                "error": INVALID_ARGUMENTS,
                "error_text": f"{tool.name}: {problem}.",
            }
        return call, None


async def say(text: str, turn: Turn) -> AsyncIterator[Delta]:
    """A step of Jarvis's own words, kept as the turn's reply."""
    turn.result.text += text
    async for delta in say_text(text):
        yield delta


def _outcome(step: StepEnd, records: Sequence[ToolCallRecord]) -> StepOutcome:
    if step != "ok":
        return step
    return "calls" if records else "reply"
