"""The client contract every LLM backend implements, and its errors."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..types import JsonObject, Message, ToolCall, ToolSpec


@dataclass(frozen=True, slots=True)
class Sampling:
    """How the model draws its reply; None leaves the choice to the server."""

    temperature: float | None = None
    top_p: float | None = None
    # Always capped: small models sometimes never stop.
    max_tokens: int = 512


# One line of a streamed reply (an SSE event, an NDJSON object) carries a few
# tokens; a longer one ends the call with LLMResponseError, read up to here only.
MAX_STREAM_LINE = 512 * 1024


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One chat completion request."""

    model: str
    messages: Sequence[Message]
    tools: Sequence[ToolSpec] | None = None
    sampling: Sampling = Sampling()
    num_ctx: int | None = None
    keep_alive: int | None = None  # seconds; Ollama only
    think: bool | None = None
    # A JSON schema the reply must follow: servers that can constrain
    # decoding to it do; others ignore it, so callers still check the reply.
    json_schema: JsonObject | None = None


# Far more characters than tokens of any reply have on average (most tokens
# have two to six; the longest, runs of spaces or symbols, a few dozen).
TOKEN_CHARS = 128


class ReplyBudget:
    """What a streamed reply may still bring within its max_tokens.

    Every piece with text or a call carries a token at least (llama.cpp may
    send two for one as it parses a tool call), and tokens average far fewer
    than TOKEN_CHARS characters: a reply past either bound comes from a
    server that ignores max_tokens. Clients end it there, as the server should
    have; else it runs on to the turn deadline, its text growing meanwhile.
    """

    def __init__(self, max_tokens: int) -> None:
        self._pieces = 2 * max_tokens
        self._chars = TOKEN_CHARS * max_tokens

    def spend(self, chars: int) -> bool:
        """Count a piece of `chars` characters; False if it is over the budget."""
        self._pieces -= 1
        self._chars -= chars
        return self._pieces >= 0 and self._chars >= 0


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts reported by the server for one call."""

    prompt_tokens: int
    completion_tokens: int
    # Prompt tokens the server took from its cache; None when it does not say
    # (Ollama counts only what it evaluated in `prompt_tokens`).
    cached_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ChatChunk:
    """One streamed piece of a reply.

    Clients assemble partial tool-call deltas and emit only complete calls.
    The last chunk has `done` set and carries `usage` when the server reports it.
    """

    content: str = ""
    thinking: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    done: bool = False


class LLMError(Exception):
    """Base class for LLM client errors."""


class LLMConnectionError(LLMError):
    """The server could not be reached."""


class LLMTimeoutError(LLMError):
    """The server did not answer in time."""


class LLMAuthError(LLMError):
    """The server refused the credentials (401/403)."""


class LLMToolsRejectedError(LLMError):
    """The server or model rejected a request because it carried tools (HTTP 400)."""


class LLMResponseError(LLMError):
    """Any other HTTP error or a malformed response."""


class LLMClient(Protocol):
    """A chat backend. `chat_stream` is an async generator: closing it cancels the request."""

    @property
    def backend(self) -> str:
        """Backend identifier, 'ollama' or 'openai'."""

    async def list_models(self) -> list[str]:
        """Return the model names the server offers."""

    def chat_stream(self, request: ChatRequest) -> AsyncGenerator[ChatChunk]:
        """Stream one chat completion."""

    async def close(self) -> None:
        """Release connections the client owns."""


@runtime_checkable
class TokenCounter(Protocol):
    """A client whose server can count a request's prompt tokens itself."""

    async def count_tokens(self, request: ChatRequest) -> int | None:
        """The server's count of the prompt, or None where it cannot tell.

        Never raises for a missing or failing tokenizer: counting is an aid.
        """
