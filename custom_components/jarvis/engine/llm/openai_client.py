"""Client for OpenAI-compatible servers (llama.cpp, vLLM, LM Studio, Ollama /v1)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing, contextmanager
from dataclasses import dataclass, field
import functools
import json
import ssl
from typing import Any
from uuid import uuid4

import aiohttp

from ..types import JsonObject, Message, ToolCall
from .base import (
    ChatChunk,
    ChatRequest,
    LLMAuthError,
    LLMConnectionError,
    LLMResponseError,
    LLMTimeoutError,
    LLMToolsRejectedError,
    Usage,
)

_ERROR_BODY_LIMIT = 200


@dataclass(slots=True)
class _PartialCall:
    """A tool call whose arguments are still arriving in pieces."""

    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)

    def complete(self) -> ToolCall:
        raw = "".join(self.arguments)
        return ToolCall(
            id=self.id or f"call_{uuid4().hex[:12]}",
            name=self.name,
            arguments=_parse_arguments(raw),
        )


def _parse_arguments(raw: str) -> JsonObject:
    """Decode tool arguments; keep unparsable text under "__raw__" for the loop."""
    if not raw.strip():
        return {}
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return {"__raw__": raw}
    if not isinstance(parsed, dict):
        return {"__raw__": raw}
    return parsed


def _wire_message(message: Message) -> JsonObject:
    wire: JsonObject = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {
                    "name": call.name,
                    "arguments": json.dumps(call.arguments),
                },
            }
            for call in message.tool_calls
        ]
    if message.role == "tool":
        # The id pairs the result with its call; strict servers reject "name" here.
        wire["tool_call_id"] = message.tool_call_id
    elif message.name is not None:
        wire["name"] = message.name
    return wire


def _payload(request: ChatRequest) -> JsonObject:
    payload: JsonObject = {
        "model": request.model,
        "messages": [_wire_message(m) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": request.max_tokens,
    }
    if request.temperature is not None:
        payload["temperature"] = request.temperature
    if request.tools:
        payload["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools
        ]
    return payload


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    return Usage(
        prompt_tokens=int(raw.get("prompt_tokens") or 0),
        completion_tokens=int(raw.get("completion_tokens") or 0),
    )


@contextmanager
def _translate_errors() -> Iterator[None]:
    """Turn aiohttp transport failures into the engine's errors."""
    try:
        yield
    # Checked before the generic timeout: these subclass asyncio.TimeoutError.
    except aiohttp.ConnectionTimeoutError as err:
        raise LLMConnectionError(f"Timed out connecting: {err}") from err
    except TimeoutError as err:
        raise LLMTimeoutError("The server did not answer in time") from err
    except aiohttp.ClientPayloadError as err:
        raise LLMResponseError(f"Incomplete response: {err}") from err
    except aiohttp.ClientConnectionError as err:
        raise LLMConnectionError(f"Cannot reach the server: {err}") from err
    except aiohttp.ClientError as err:
        raise LLMResponseError(f"Request failed: {err}") from err


class OpenAIClient:
    """Streams chat completions from `<base>/v1/chat/completions` over SSE."""

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        *,
        session: aiohttp.ClientSession | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float | None = 120.0,
        verify_ssl: bool | ssl.SSLContext = True,
    ) -> None:
        """Use `session` if given (left open by close()), else own one.

        `read_timeout` bounds the wait for each piece of the stream, not the
        whole reply. Pass an SSLContext as `verify_ssl` to avoid building one
        (blocking) inside the event loop.
        """
        base = url.rstrip("/")
        base = base.removesuffix("/v1")
        self._base = f"{base}/v1"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=connect_timeout, sock_read=read_timeout
        )
        self._ssl = verify_ssl
        self._session = session
        self._owns_session = session is None

    @property
    def backend(self) -> str:
        """Backend identifier."""
        return "openai"

    def _get_session(self) -> aiohttp.ClientSession:
        # Created lazily: ClientSession wants a running event loop.
        if self._session is None:
            self._session = aiohttp.ClientSession()
        return self._session

    async def _raise_for_status(
        self, response: aiohttp.ClientResponse, *, had_tools: bool
    ) -> None:
        if response.status < 300:
            return
        body = (await response.text(errors="replace")).strip()
        if len(body) > _ERROR_BODY_LIMIT:
            body = body[:_ERROR_BODY_LIMIT] + "…"
        message = f"HTTP {response.status}: {body}"
        if response.status in (401, 403):
            raise LLMAuthError(message)
        if response.status == 400 and had_tools:
            raise LLMToolsRejectedError(message)
        raise LLMResponseError(message)

    async def list_models(self) -> list[str]:
        """Return the ids from GET /v1/models."""
        with _translate_errors():
            async with self._get_session().get(
                f"{self._base}/models",
                headers=self._headers,
                timeout=self._timeout,
                ssl=self._ssl,
            ) as response:
                await self._raise_for_status(response, had_tools=False)
                try:
                    data = await response.json(content_type=None)
                    return [str(model["id"]) for model in data["data"]]
                except (ValueError, KeyError, TypeError) as err:
                    raise LLMResponseError(f"Unexpected model list: {err}") from err

    async def chat_stream(self, request: ChatRequest) -> AsyncGenerator[ChatChunk]:
        """Stream one completion; closing the generator drops the connection."""
        with _translate_errors():
            async with await self._post_chat(_payload(request)) as response:
                await self._raise_for_status(response, had_tools=bool(request.tools))
                finished = False
                try:
                    async with aclosing(self._read_events(response)) as events:
                        async for chunk in events:
                            yield chunk
                    finished = True
                finally:
                    if not finished:
                        # Dropping the connection is the only way to tell the
                        # server to stop; llama.cpp keeps its slot busy otherwise.
                        response.close()

    async def _post_chat(self, payload: dict[str, Any]) -> aiohttp.ClientResponse:
        """POST a chat request, retrying once on a stale pooled connection.

        llama.cpp closes idle keep-alive connections; aiohttp notices only when
        it reuses one, before any byte of the reply, so a retry is safe.
        """
        post = functools.partial(
            self._get_session().post,
            f"{self._base}/chat/completions",
            json=payload,
            headers=self._headers,
            timeout=self._timeout,
            ssl=self._ssl,
        )
        try:
            return await post()
        except aiohttp.ServerDisconnectedError:
            return await post()

    async def _read_events(
        self, response: aiohttp.ClientResponse
    ) -> AsyncGenerator[ChatChunk]:
        calls: dict[int, _PartialCall] = {}
        usage: Usage | None = None
        finish_seen = False

        def flush() -> tuple[ToolCall, ...]:
            complete = tuple(calls[i].complete() for i in sorted(calls))
            calls.clear()
            return complete

        async for raw_line in response.content:
            line = raw_line.decode("utf-8", errors="replace").strip()
            # Blank lines separate events; ':' lines are keep-alive comments.
            if not line.startswith("data:"):
                continue
            data = line.removeprefix("data:").strip()
            if data == "[DONE]":
                yield ChatChunk(tool_calls=flush(), usage=usage, done=True)
                return
            try:
                event = json.loads(data)
            except json.JSONDecodeError as err:
                raise LLMResponseError(f"Malformed stream event: {data[:80]}") from err
            if not isinstance(event, dict):
                raise LLMResponseError(f"Malformed stream event: {data[:80]}")
            if "error" in event:
                raise LLMResponseError(f"Server error mid-stream: {event['error']}")
            usage = _usage(event.get("usage")) or usage
            for choice in event.get("choices") or ():
                delta = choice.get("delta") or {}
                content = delta.get("content") or ""
                thinking = delta.get("reasoning_content") or ""
                if content or thinking:
                    yield ChatChunk(content=content, thinking=thinking)
                for part in delta.get("tool_calls") or ():
                    call = calls.setdefault(part.get("index", 0), _PartialCall())
                    call.id = part.get("id") or call.id
                    function = part.get("function") or {}
                    call.name = function.get("name") or call.name
                    call.arguments.append(function.get("arguments") or "")
                if choice.get("finish_reason"):
                    finish_seen = True
                    if calls:
                        yield ChatChunk(tool_calls=flush())
        # Some servers end the stream without [DONE]; a finish_reason suffices.
        if not finish_seen:
            raise LLMResponseError("The stream ended before the reply was complete")
        yield ChatChunk(tool_calls=flush(), usage=usage, done=True)

    async def close(self) -> None:
        """Close the session if this client created it."""
        if self._owns_session and self._session is not None:
            await self._session.close()
            self._session = None
