"""Client for Ollama's native /api/chat, through the `ollama` package."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing, contextmanager
import json
import ssl
from typing import Any, cast
from uuid import uuid4

import httpx
import ollama
import pydantic

from ..bounded import TooLargeError, response_cap
from ..redact import redacting_logger
from ..types import Message, ToolCall
from .base import (
    MAX_STREAM_LINE,
    ChatChunk,
    ChatRequest,
    LLMAuthError,
    LLMConnectionError,
    LLMResponseError,
    LLMTimeoutError,
    LLMToolsRejectedError,
    ReplyBudget,
    Usage,
)

_LOGGER = redacting_logger(__name__)


def _wire_message(message: Message) -> ollama.Message:
    # ollama 0.5.1's Message has no `tool_name`, so tool results go by order.
    return ollama.Message(
        role=message.role,
        content=message.content,
        tool_calls=[
            ollama.Message.ToolCall(
                function=ollama.Message.ToolCall.Function(
                    name=call.name, arguments=call.arguments
                )
            )
            for call in message.tool_calls
        ]
        or None,
    )


def _options(request: ChatRequest) -> dict[str, Any]:
    sampling = request.sampling
    options = {
        "num_ctx": request.num_ctx,
        "num_predict": sampling.max_tokens,
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
    }
    return {key: value for key, value in options.items() if value is not None}


def _chunk(part: ollama.ChatResponse) -> ChatChunk:
    message = part.message
    tool_calls = tuple(
        # Ollama gives calls no id; the loop needs one to pair results.
        ToolCall(
            id=f"call_{uuid4().hex[:12]}",
            name=call.function.name,
            arguments=dict(call.function.arguments),
        )
        for call in message.tool_calls or ()
    )
    usage = None
    if part.done:
        usage = Usage(
            prompt_tokens=part.prompt_eval_count or 0,
            completion_tokens=part.eval_count or 0,
        )
    return ChatChunk(
        content=message.content or "",
        thinking=message.thinking or "",
        tool_calls=tool_calls,
        usage=usage,
        done=bool(part.done),
    )


@contextmanager
def _translate_errors(*, had_tools: bool = False) -> Iterator[None]:
    """Turn httpx and ollama failures into the engine's errors."""
    try:
        yield
    except TooLargeError as err:
        raise LLMResponseError(str(err)) from err
    except ollama.ResponseError as err:
        # Errors sent inside a stream carry no status (-1).
        message = (
            f"HTTP {err.status_code}: {err.error}" if err.status_code > 0 else err.error
        )
        if err.status_code in (401, 403):
            raise LLMAuthError(message) from err
        if err.status_code == 400 and had_tools:
            raise LLMToolsRejectedError(message) from err
        raise LLMResponseError(message) from err
    # ollama raises the builtin ConnectionError for httpx.ConnectError.
    except (httpx.ConnectError, httpx.ConnectTimeout, ConnectionError) as err:
        raise LLMConnectionError(f"Cannot reach Ollama: {err}") from err
    except httpx.TimeoutException as err:
        raise LLMTimeoutError("Ollama did not answer in time") from err
    except (httpx.RemoteProtocolError, httpx.DecodingError) as err:
        raise LLMResponseError(f"Broken response from Ollama: {err}") from err
    except httpx.TransportError as err:
        raise LLMConnectionError(f"Connection to Ollama failed: {err}") from err
    except (json.JSONDecodeError, pydantic.ValidationError) as err:
        raise LLMResponseError(f"Malformed response from Ollama: {err}") from err


class OllamaClient:
    """Streams chats from Ollama's native API."""

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        connect_timeout: float = 10.0,
        read_timeout: float | None = 120.0,
        verify_ssl: bool | ssl.SSLContext = True,
    ) -> None:
        """Connect to the Ollama server at `url`.

        `read_timeout` bounds the wait for each piece of the stream, not the
        whole reply. Pass an SSLContext as `verify_ssl` to avoid building one
        (blocking) inside the event loop.
        """
        self._client = ollama.AsyncClient(
            host=url,
            headers={"Authorization": f"Bearer {api_key}"} if api_key else None,
            timeout=httpx.Timeout(read_timeout, connect=connect_timeout),
            verify=verify_ssl,
            # The package reads NDJSON lines with no bound of its own.
            event_hooks={"response": [response_cap(max_line=MAX_STREAM_LINE)]},
        )

    @property
    def backend(self) -> str:
        """Backend identifier."""
        return "ollama"

    async def list_models(self) -> list[str]:
        """Return the names of the locally available models."""
        with _translate_errors():
            response = await self._client.list()
        return [model.model for model in response.models if model.model]

    async def chat_stream(self, request: ChatRequest) -> AsyncGenerator[ChatChunk]:
        """Stream one chat; closing the generator closes the HTTP response."""
        tools = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools or ()
        ]
        with _translate_errors(had_tools=bool(tools)):
            # The package's stream is an async generator, though typed as iterator.
            stream = cast(
                AsyncGenerator[ollama.ChatResponse],
                await self._client.chat(
                    model=request.model,
                    messages=[_wire_message(m) for m in request.messages],
                    tools=tools or None,
                    stream=True,
                    think=request.think,
                    format=request.json_schema,
                    options=_options(request),
                    keep_alive=(
                        f"{request.keep_alive}s"
                        if request.keep_alive is not None
                        else None
                    ),
                ),
            )
            budget = ReplyBudget(request.sampling.max_tokens)
            # aclosing: an abandoned stream must close its response at once, so
            # Ollama notices the disconnect and stops generating.
            async with aclosing(stream):
                async for part in stream:
                    chunk = _chunk(part)
                    if chunk.content or chunk.thinking or chunk.tool_calls:
                        size = len(chunk.content) + len(chunk.thinking)
                        size += sum(
                            len(json.dumps(call.arguments)) for call in chunk.tool_calls
                        )
                        if not budget.spend(size):
                            _LOGGER.warning("The server ignored max_tokens; reply cut")
                            yield ChatChunk(done=True)
                            return
                        yield chunk
                    elif chunk.done:
                        yield chunk
                    if chunk.done:
                        return
        raise LLMResponseError("The stream ended before the reply was complete")

    async def close(self) -> None:
        """Close the HTTP connections."""
        await self._client._client.aclose()
