"""What a step streams to its host (Home Assistant's chat log, or a local host
in tests and scripts), and the host's side."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from ..types import JsonObject, ToolCall


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


async def say_text(text: str) -> AsyncIterator[Delta]:
    """A step that is only Jarvis's own words."""
    yield StepStart()
    yield TextDelta(text)


def call_step(delta: ToolCallDelta) -> AsyncIterator[Delta]:
    """A step that is one tool call the engine made itself."""

    async def deltas() -> AsyncIterator[Delta]:
        yield StepStart()
        yield delta

    return deltas()
