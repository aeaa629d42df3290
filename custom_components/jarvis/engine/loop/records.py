"""What a turn did: its LLM calls, its tool calls, and how it ended."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..llm.base import Usage
from ..types import JsonObject

type Protocol_ = Literal["native", "text"]
# Why the loop called the model.
type Purpose = Literal["plan", "step", "answer", "repair", "summary"]
# The tool protocol of one call; none when no tools were offered.
type CallProtocol = Literal["native", "text", "none"]
# How a model step ended: "cut" when its call was cut off in a repetition loop.
type StepEnd = Literal["ok", "llm_error", "junk", "cut"]
type CallOutcome = Literal[
    "ok", "junk", "cut", "unusable", "llm_error", "tools_rejected"
]
type Ended = Literal[
    "done",
    "stopped",
    "memory",
    "max_turns",
    "tool_failures",
    "llm_error",
    "not_understood",
    "final_reply",
    "confirmation",
    "deadline",
]


@dataclass(frozen=True, slots=True)
class LLMCallRecord:
    """One call to the model and how it went."""

    purpose: Purpose
    protocol: CallProtocol
    tools_offered: int
    prompt_tokens: int
    completion_tokens: int
    first_token_s: float | None
    duration_s: float
    outcome: CallOutcome
    # Of the prompt tokens, those the server's cache held (None: not reported).
    cached_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Timing:
    """How long one call took, and what the server counted."""

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
    ended: Ended = "done"
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
    # Its prompts showed no tools (small talk, an answer from memory): the
    # server's prompt cache no longer starts as the next command's will.
    without_tools: bool = False


def call_words(request: str, arguments: JsonObject) -> str:
    """What a tool result is matched against: the request and the call's values."""
    values = " ".join(str(value) for value in arguments.values())
    return f"{request} {values}"
