"""Messages, tools and tool calls as the engine sees them, independent of any wire format."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

type JsonObject = dict[str, Any]
type Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool offered to the model; `parameters` is a JSON schema object."""

    name: str
    description: str
    parameters: JsonObject
    # The kinds of device (Home Assistant's domains) it acts on, where its
    # host knows them: "media_player" for each of a player's tools.
    kinds: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A complete tool call with parsed arguments."""

    id: str
    name: str
    arguments: JsonObject


@dataclass(slots=True)
class Message:
    """One chat message; `tool_calls` on assistant turns, `tool_call_id` on tool turns."""

    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
