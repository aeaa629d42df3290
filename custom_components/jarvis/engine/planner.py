"""The pre-flight planner: a short, cheap LLM call that orders the work.

It sees the request, a short dialogue snippet and the tool catalogue (names
and one line each) and answers with at most five numbered steps. A single
"reply" step means no tools and no memory are needed; a leading "memory"
step means stored facts are; tool steps name the tools to offer. Anything
unusable (timeout, junk) gives an empty plan, and the caller falls back to
routing on its own: the planner can only narrow what happens, never block it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
import logging
import re
import time

from .llm.base import ChatRequest, LLMClient, LLMError
from .output import strip_think
from .types import Message, ToolSpec

_LOGGER = logging.getLogger(__name__)

MAX_STEPS = 5
REPLY = "reply"
MEMORY = "memory"
PLANNER_PROMPT = """You plan how a home voice assistant handles a request.
Write at most {max_steps} numbered steps, one per line, and nothing else.
Each step is one of:
- reply: answer the user (always the last step)
- memory: look up facts the user told you before (only as the first step)
- <tool name>: <what to do with it>
Use only tool names from this list:
{tools}
Small talk, greetings, jokes and general questions need just: 1. reply"""
_STEP_RE = re.compile(r"^\s*(?:\d+[.)]|[-*•])?\s*([\w.\-]+)\s*(?::\s*(.*))?$")


@dataclass(frozen=True, slots=True)
class PlanStep:
    """One planned step: a tool name, "memory" or "reply", and what for."""

    action: str
    detail: str = ""


@dataclass(slots=True)
class Plan:
    """The planner's answer. Empty when it failed or was unusable."""

    steps: list[PlanStep] = field(default_factory=list)
    # How the planning call went; no call was made when not attempted.
    attempted: bool = False
    outcome: str = "ok"  # ok | unusable | llm_error
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


def parse_plan(text: str, tools: Sequence[ToolSpec]) -> Plan:
    """Numbered steps naming known tools; anything else makes the plan empty."""
    known = {tool.name.lower(): tool.name for tool in tools}
    steps: list[PlanStep] = []
    for line in strip_think(text).splitlines():
        if not line.strip():
            continue
        match = _STEP_RE.match(line)
        if match is None:
            return Plan()
        action = match.group(1).lower().rstrip(".")
        detail = (match.group(2) or "").strip()
        if action in (REPLY, MEMORY):
            steps.append(PlanStep(action, detail))
        elif action in known:
            steps.append(PlanStep(known[action], detail))
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
    catalogue = "\n".join(
        f"- {tool.name}: {tool.description.strip().splitlines()[0] if tool.description.strip() else ''}"
        for tool in tools
    )
    snippet = "\n".join(
        f"{m.role}: {m.content[:200]}"
        for m in dialogue[-4:]
        if m.role in ("user", "assistant") and m.content
    )
    user = (
        f"Conversation so far:\n{snippet}\n\nRequest: {request}" if snippet else request
    )
    chat = ChatRequest(
        model=model,
        messages=[
            Message(
                "system", PLANNER_PROMPT.format(max_steps=MAX_STEPS, tools=catalogue)
            ),
            Message("user", user),
        ],
        max_tokens=80,
        temperature=0.0,
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
