"""The context budget: keep every prompt within the model's context window.

Tokens are estimated from characters with a ratio calibrated against the
token counts the server reports; where the server has a tokenizer, each
request is checked with it before it is sent. Over budget, long tool results
are shortened first; then the oldest turns are folded into one summary message,
never splitting a tool call from its result and keeping the latest turns
verbatim.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import json

from .llm.base import ChatRequest, TokenCounter
from .types import Message, ToolSpec

# Characters per token before any calibration: conservative for English and
# European languages with BPE tokenizers.
DEFAULT_CHARS_PER_TOKEN = 3.2
# Bounds for learnt ratios: a server's odd count must not wreck the estimate.
MIN_CHARS_PER_TOKEN = 1.5
MAX_CHARS_PER_TOKEN = 6.0
MESSAGE_OVERHEAD_TOKENS = 4  # role markers of chat templates
SHORT_TOOL_RESULT_CHARS = 600
KEEP_RECENT_TURNS = 2
SUMMARY_LINE_CHARS = 160
# The summary may take this share of the budget.
SUMMARY_SHARE = 1 / 3
MIN_LINE_CHARS = 40
USER_LINE = "- The user said: "


class TokenEstimator:
    """Characters-to-tokens ratio, learnt from the server's real counts."""

    def __init__(self) -> None:
        self.chars_per_token = DEFAULT_CHARS_PER_TOKEN

    def estimate(self, text: str) -> int:
        """Tokens a text is expected to take."""
        return int(len(text) / self.chars_per_token) + 1

    def calibrate(self, chars: int, tokens: int) -> None:
        """Move the ratio towards what the server measured (slowly, and never
        above the measured value, so estimates err on the large side)."""
        if chars <= 0 or tokens <= 0:
            return
        measured = min(max(chars / tokens, MIN_CHARS_PER_TOKEN), MAX_CHARS_PER_TOKEN)
        blended = 0.7 * self.chars_per_token + 0.3 * measured
        self.chars_per_token = min(blended, measured)


def prompt_chars(
    system: str, messages: Sequence[Message], tools: Sequence[ToolSpec]
) -> int:
    """Characters of everything a request sends."""
    total = len(system)
    for message in messages:
        total += len(message.content)
        total += sum(
            len(call.name) + len(json.dumps(call.arguments))
            for call in message.tool_calls
        )
    total += sum(
        len(tool.name) + len(tool.description) + len(json.dumps(tool.parameters))
        for tool in tools
    )
    return total


async def over_limit(
    client: object, request: ChatRequest, limit: int, estimator: TokenEstimator
) -> bool:
    """Whether the server's tokenizer counts `request` past `limit` tokens when
    the estimate did not; then the estimator takes the server's ratio at once,
    so fitting again folds enough.

    One count of the finished request per call: exact where fitting needs many
    quick estimates of candidates, and a few milliseconds beside the call itself.
    """
    if not isinstance(client, TokenCounter):
        return False
    counted = await client.count_tokens(request)
    if counted is None or counted <= limit:
        return False
    before = estimator.chars_per_token
    estimator.calibrate(
        prompt_chars("", request.messages, request.tools or ()), counted
    )
    return estimator.chars_per_token < before


@dataclass(frozen=True, slots=True)
class Fitted:
    """Messages that fit, and what was done to make them fit."""

    messages: list[Message]
    shortened_results: int = 0
    summarised_turns: int = 0


def fit(
    system: str,
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    *,
    budget: int,
    estimator: TokenEstimator,
) -> Fitted:
    """Shorten and summarise until the request fits in `budget` tokens."""

    def tokens(candidate: Sequence[Message]) -> int:
        chars = prompt_chars(system, candidate, tools)
        overhead = MESSAGE_OVERHEAD_TOKENS * (len(candidate) + 1)
        return int(chars / estimator.chars_per_token) + overhead

    current = list(messages)
    if tokens(current) <= budget:
        return Fitted(current)

    # First, long tool results outside the latest turns.
    shortened = 0
    starts = _turn_starts(current)
    protected = starts[-KEEP_RECENT_TURNS] if len(starts) >= KEEP_RECENT_TURNS else 0
    for index, message in enumerate(current[:protected]):
        if message.role == "tool" and len(message.content) > SHORT_TOOL_RESULT_CHARS:
            current[index] = Message(
                "tool",
                message.content[:SHORT_TOOL_RESULT_CHARS] + "…(shortened)",
                tool_call_id=message.tool_call_id,
                name=message.name,
            )
            shortened += 1
    if tokens(current) <= budget:
        return Fitted(current, shortened_results=shortened)

    # Then whole turns, oldest first, folded into one summary message.
    lines: list[str] = []
    folded = 0
    summary_chars = int(budget * estimator.chars_per_token * SUMMARY_SHARE)
    while tokens(_with_summary(lines, current, summary_chars)) > budget:
        starts = _turn_starts(current)
        if len(starts) <= KEEP_RECENT_TURNS:
            break
        lines.extend(_summary_lines(current[: starts[1]]))
        current = current[starts[1] :]
        folded += 1
    return Fitted(
        _with_summary(lines, current, summary_chars),
        shortened_results=shortened,
        summarised_turns=folded,
    )


def _with_summary(
    lines: Sequence[str], messages: Sequence[Message], max_chars: int
) -> list[Message]:
    if not lines:
        return list(messages)
    header = "(Summary of the earlier conversation, for reference)\n"
    return [Message("user", header + _squeeze(lines, max_chars)), *messages]


def _squeeze(lines: Sequence[str], max_chars: int) -> str:
    """At most max_chars: what the user said outlives what was answered."""
    text = "\n".join(lines)
    if len(text) <= max_chars:
        return text
    said = [
        line.removeprefix(USER_LINE) for line in lines if line.startswith(USER_LINE)
    ]
    per_line = max(MIN_LINE_CHARS, max_chars // max(1, len(said)) - 3)
    text = "\n".join(f"- {line[:per_line]}" for line in said)
    return f"The user said:\n{text}"[:max_chars]


def _turn_starts(messages: Sequence[Message]) -> list[int]:
    """Indexes of user messages: a turn runs from one to the next."""
    return [i for i, m in enumerate(messages) if m.role == "user"]


def _summary_lines(turn: Sequence[Message]) -> list[str]:
    lines = []
    for message in turn:
        text = " ".join(message.content.split())[:SUMMARY_LINE_CHARS]
        if message.role == "user" and text:
            lines.append(f"{USER_LINE}{text}")
        elif message.role == "assistant" and text:
            lines.append(f"- You answered: {text}")
        elif message.role == "assistant" and message.tool_calls:
            names = ", ".join(call.name for call in message.tool_calls)
            lines.append(f"- You used: {names}")
    return lines
