"""The pre-flight planner: a short, cheap LLM call that orders the work.

It sees the request, a short dialogue snippet and the tool catalogue (names
and one line each) and answers with at most five numbered steps. A single
"reply" step means no tools and no memory are needed; a leading "memory"
step means stored facts are; tool steps name the tools to offer. Asked for
arguments (models on the text protocol), a tool step carries them as JSON, so
the loop can run it without the chat model. Anything unusable (timeout, junk)
gives an empty plan, and the caller falls back to routing on its own: the
planner can only narrow what happens, never block it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
import re
import time
from typing import Literal

from .llm.base import ChatRequest, LLMClient, LLMError, Sampling
from .output import strip_think
from .redact import redacting_logger
from .text import folded_words
from .textproto import first_json_object
from .types import JsonObject, Message, ToolSpec

_LOGGER = redacting_logger(__name__)

MAX_STEPS = 5
REPLY = "reply"
MEMORY = "memory"
PLANNER_PROMPT = """You plan how a home voice assistant handles a request.
Write at most {max_steps} numbered steps, one per line, and nothing else.
Each step is one of:
- <tool name>: <its arguments as one JSON object, values copied from the request>
- memory: look up facts the user told you before (only as the first step)
- reply: answer the user (always the last step)
Use only these tools:
{tools}

{examples}Request: good morning!
1. reply

Request: where did I park the car?
1. memory
2. reply"""
# Worked examples: Qwen2.5-Coder 0.5B writes usable plans with them and
# almost none without. Each is shown when the catalogue has its tools. One
# step each: given a two-step example, the 0.5B model copied its second step
# into plans for simple commands.
TOOL_EXAMPLES = (
    (
        ("HassTurnOn",),
        """Request: turn on the desk lamp
1. HassTurnOn: {"name": "desk lamp"}
2. reply
""",
    ),
    (
        ("GetLiveContext",),
        """Request: is the back door locked?
1. GetLiveContext: {}
2. reply
""",
    ),
)
_STEP_RE = re.compile(r"^\s*(?:\d+[.)]|[-*•])?\s*([\w.\-]+)\s*(?::\s*(.*))?$")


@dataclass(frozen=True, slots=True)
class PlanStep:
    """One planned step: a tool name, "memory" or "reply", and what for."""

    action: str
    detail: str = ""
    # The call's arguments, when the planner wrote them as JSON.
    arguments: JsonObject | None = None


@dataclass(slots=True)
class Plan:
    """The planner's answer. Empty when it failed or was unusable."""

    steps: list[PlanStep] = field(default_factory=list)
    # How the planning call went; no call was made when not attempted.
    attempted: bool = False
    outcome: Literal["ok", "unusable", "llm_error"] = "ok"
    duration_s: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def reply_only(self) -> bool:
        """Nothing to do but answer: no tools, no memory."""
        return [s.action for s in self.steps] == [REPLY]

    @property
    def needs_memory(self) -> bool:
        """The plan starts by looking up stored facts."""
        return bool(self.steps) and self.steps[0].action == MEMORY

    @property
    def tools(self) -> list[str]:
        """Tool names the plan uses, in order."""
        return [s.action for s in self.steps if s.action not in (REPLY, MEMORY)]

    def describe(self) -> str:
        """The plan as the chat model sees it."""
        lines = [
            f"{i}. {step.action}{': ' + step.detail if step.detail else ''}"
            for i, step in enumerate(self.steps, 1)
        ]
        return "## Action plan\nFollow these steps in order:\n" + "\n".join(lines)

    def next_after(self, done: Sequence[str]) -> PlanStep | None:
        """The first tool step not done yet."""
        remaining = list(done)
        for step in self.steps:
            if step.action in (REPLY, MEMORY):
                continue
            if step.action in remaining:
                remaining.remove(step.action)
                continue
            return step
        return None


def grounded(arguments: JsonObject, text: str) -> bool:
    """Whether every argument value is made of words and numbers of the text.

    A planner that copies "kitchen lights" from the request is trusted with
    the call; one that adds a floor, a colour or a device of its own is not.
    """
    said = folded_words(text)
    return all(_value_grounded(value, said) for value in arguments.values())


def _value_grounded(value: object, said: set[str]) -> bool:
    if isinstance(value, list):
        return all(_value_grounded(item, said) for item in value)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return False
    number = isinstance(value, float) and value.is_integer()
    return folded_words(str(int(value) if number else value)) <= said


def parse_plan(text: str, tools: Sequence[ToolSpec]) -> Plan:
    """Numbered steps naming known tools; anything else makes the plan empty."""
    known = {tool.name.lower(): tool.name for tool in tools}
    steps: list[PlanStep] = []
    for line in strip_think(text).splitlines():
        if not line.strip():
            if steps:
                break  # small models go on to invent the next example
            continue
        match = _STEP_RE.match(line)
        if match is None:
            return Plan()
        action = match.group(1).lower().rstrip(".")
        detail = (match.group(2) or "").strip()
        if action in (REPLY, MEMORY):
            steps.append(PlanStep(action, detail))
        elif action in known:
            steps.append(PlanStep(known[action], detail, first_json_object(detail)))
        else:
            return Plan()
    if not steps or len(steps) > MAX_STEPS:
        return Plan()
    if any(s.action == MEMORY for s in steps[1:]):
        return Plan()
    return Plan(steps)


async def make_plan(
    client: LLMClient,
    model: str,
    request: str,
    dialogue: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    time_limit: float,
) -> Plan:
    """Ask the model for a plan; an empty plan on any failure (fail-open)."""
    snippet = "\n".join(
        f"{m.role}: {m.content[:200]}"
        for m in dialogue[-4:]
        if m.role in ("user", "assistant") and m.content
    )
    user = f"Request: {request}"
    if snippet:
        user = f"Conversation so far:\n{snippet}\n\n{user}"
    chat = ChatRequest(
        model=model,
        messages=[
            Message("system", planner_prompt(tools)),
            Message("user", user),
        ],
        # Five steps with JSON arguments, about 20 tokens each.
        sampling=Sampling(temperature=0.0, max_tokens=120),
    )
    text = ""
    usage = (0, 0)
    started = time.monotonic()
    try:
        async with (
            asyncio.timeout(time_limit),
            aclosing(client.chat_stream(chat)) as stream,
        ):
            async for chunk in stream:
                text += chunk.content
                if chunk.usage:
                    usage = (chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
    except (LLMError, TimeoutError) as err:
        _LOGGER.debug("Planner gave up: %s", err or type(err).__name__)
        return Plan(
            attempted=True, outcome="llm_error", duration_s=time.monotonic() - started
        )
    plan = parse_plan(text, tools)
    plan.attempted = True
    plan.outcome = "ok" if plan.steps else "unusable"
    plan.duration_s = time.monotonic() - started
    plan.prompt_tokens, plan.completion_tokens = usage
    _LOGGER.debug("Plan for %r: %s", request, plan.steps or "none (fell open)")
    return plan


def planner_prompt(tools: Sequence[ToolSpec]) -> str:
    """The planner's instructions for this catalogue."""
    names = {tool.name for tool in tools}
    examples = "".join(
        f"{example}\n" for needed, example in TOOL_EXAMPLES if names.issuperset(needed)
    )
    return PLANNER_PROMPT.format(
        max_steps=MAX_STEPS,
        tools="\n".join(_catalogue_line(tool) for tool in tools),
        examples=examples,
    )


def _catalogue_line(tool: ToolSpec) -> str:
    """`- name(argument, ...): first line of the description`."""
    description = tool.description.strip()
    line = description.splitlines()[0] if description else ""
    properties: JsonObject = tool.parameters.get("properties") or {}
    return f"- {tool.name}({', '.join(properties)}): {line}"
