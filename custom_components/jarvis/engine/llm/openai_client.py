"""Client for OpenAI-compatible servers (llama.cpp, vLLM, LM Studio, Ollama /v1)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing, contextmanager
from dataclasses import dataclass, field
import functools
import json
import ssl
from typing import Any
from uuid import uuid4

import aiohttp

from ..bounded import TooLargeError, lines
from ..redact import redacting_logger
from ..types import JsonObject, Message, ToolCall
from .base import (
    MAX_STREAM_LINE,
    ChatChunk,
    ChatRequest,
    LLMAuthError,
    LLMConnectionError,
    LLMError,
    LLMResponseError,
    LLMTimeoutError,
    LLMToolsRejectedError,
    ReplyBudget,
    Usage,
)

_LOGGER = redacting_logger(__name__)

_ERROR_BODY_LIMIT = 200
# Counting is an aid to the context budget: a server that cannot count within
# this time is treated as having no tokenizer rather than slowing every call.
COUNT_TIMEOUT = 2.0


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
        "max_tokens": request.sampling.max_tokens,
    }
    optional = {
        "temperature": request.sampling.temperature,
        "top_p": request.sampling.top_p,
    }
    payload.update({key: value for key, value in optional.items() if value is not None})
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
    if request.json_schema is not None:
        # llama.cpp turns the schema into a grammar; "strict" is OpenAI's switch.
        payload["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": "data",
                "schema": request.json_schema,
                "strict": True,
            },
        }
    return payload


def _usage(raw: Any) -> Usage | None:
    if not isinstance(raw, dict):
        return None
    details = raw.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return Usage(
        prompt_tokens=int(raw.get("prompt_tokens") or 0),
        completion_tokens=int(raw.get("completion_tokens") or 0),
        cached_tokens=int(cached) if isinstance(cached, int) else None,
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
    except TooLargeError as err:
        raise LLMResponseError(str(err)) from err


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
        # llama.cpp serves its tokenizer at the root, beside /v1.
        self._root = base.removesuffix("/v1")
        self._base = f"{self._root}/v1"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = aiohttp.ClientTimeout(
            total=None, sock_connect=connect_timeout, sock_read=read_timeout
        )
        self._ssl = verify_ssl
        self._session = session
        self._owns_session = session is None
        self._closed = False
        # None until the first count tells whether the server has a tokenizer.
        self._has_tokenizer: bool | None = None

    @property
    def backend(self) -> str:
        """Backend identifier."""
        return "openai"

    def _get_session(self) -> aiohttp.ClientSession:
        # aiohttp's own error for this is a bare RuntimeError.
        if self._closed or (self._session is not None and self._session.closed):
            raise LLMConnectionError("The client is closed")
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
            async with await self._send("GET", f"{self._base}/models") as response:
                await self._raise_for_status(response, had_tools=False)
                try:
                    data = await response.json(content_type=None)
                    return [str(model["id"]) for model in data["data"]]
                except (ValueError, KeyError, TypeError) as err:
                    raise LLMResponseError(f"Unexpected model list: {err}") from err

    async def count_tokens(self, request: ChatRequest) -> int | None:
        """The prompt tokens of `request` by the server's own tokenizer.

        llama.cpp renders the request with its chat template (/apply-template)
        and tokenizes that (/tokenize): two short local calls give exactly the
        count the server then reports as prompt_tokens, template and tool
        schemas included, which an estimate from characters cannot. Servers
        without these routes (Ollama, vLLM, LM Studio) are asked once.
        """
        if self._has_tokenizer is False:
            return None
        try:
            async with asyncio.timeout(COUNT_TIMEOUT):
                counted = await self._count_tokens(request)
        except LLMConnectionError:
            return None  # down or closed: the chat call itself will tell
        except (LLMError, TimeoutError, ValueError, LookupError, TypeError) as err:
            _LOGGER.debug("No token counts from %s: %r", self._root, err)
            self._has_tokenizer = False
            return None
        self._has_tokenizer = True
        return counted

    async def _count_tokens(self, request: ChatRequest) -> int:
        rendered = await self._post_root("apply-template", _payload(request))
        tokenized = await self._post_root(
            "tokenize",
            # As the server tokenizes a chat prompt.
            {"content": rendered["prompt"], "add_special": True, "parse_special": True},
        )
        tokens = tokenized["tokens"]
        if not isinstance(tokens, list):
            raise TypeError(f"Unexpected tokens: {tokens!r:.80}")
        return len(tokens)

    async def _post_root(self, path: str, payload: JsonObject) -> Any:
        """POST to a route at the server root; the decoded JSON reply."""
        with _translate_errors():
            async with await self._send(
                "POST", f"{self._root}/{path}", payload
            ) as response:
                await self._raise_for_status(response, had_tools=False)
                return await response.json(content_type=None)

    async def chat_stream(self, request: ChatRequest) -> AsyncGenerator[ChatChunk]:
        """Stream one completion; closing the generator drops the connection."""
        with _translate_errors():
            async with await self._send(
                "POST", f"{self._base}/chat/completions", _payload(request)
            ) as response:
                await self._raise_for_status(response, had_tools=bool(request.tools))
                finished = False
                try:
                    async with aclosing(
                        self._read_events(
                            response, ReplyBudget(request.sampling.max_tokens)
                        )
                    ) as events:
                        async for chunk in events:
                            yield chunk
                    finished = True
                finally:
                    if not finished:
                        # Dropping the connection is the only way to tell the
                        # server to stop; llama.cpp keeps its slot busy otherwise.
                        response.close()

    async def _send(
        self, method: str, url: str, payload: JsonObject | None = None
    ) -> aiohttp.ClientResponse:
        """Send a request, retrying once on a stale pooled connection.

        llama.cpp closes idle keep-alive connections; aiohttp notices only when
        it reuses one, before any byte of the reply, so a retry is safe.
        """
        send = functools.partial(
            self._get_session().request,
            method,
            url,
            json=payload,
            headers=self._headers,
            timeout=self._timeout,
            ssl=self._ssl,
        )
        try:
            return await send()
        except aiohttp.ServerDisconnectedError:
            return await send()

    async def _read_events(
        self, response: aiohttp.ClientResponse, budget: ReplyBudget
    ) -> AsyncGenerator[ChatChunk]:
        calls: dict[int, _PartialCall] = {}
        usage: Usage | None = None
        finish_seen = False

        def flush() -> tuple[ToolCall, ...]:
            complete = tuple(calls[i].complete() for i in sorted(calls))
            calls.clear()
            return complete

        async for raw_line in lines(response.content.iter_any(), MAX_STREAM_LINE):
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
                parts = delta.get("tool_calls") or ()
                arguments = "".join(
                    str((part.get("function") or {}).get("arguments") or "")
                    for part in parts
                )
                if (content or thinking or parts) and not budget.spend(
                    len(content) + len(thinking) + len(arguments)
                ):
                    _LOGGER.warning("The server ignored max_tokens; reply cut")
                    response.close()  # the server stops only when we leave
                    yield ChatChunk(tool_calls=flush(), usage=usage, done=True)
                    return
                if content or thinking:
                    yield ChatChunk(content=content, thinking=thinking)
                for part in parts:
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
        """Close the session if this client created it; later calls raise
        LLMConnectionError."""
        self._closed = True
        if self._owns_session and self._session is not None:
            await self._session.close()
            self._session = None
