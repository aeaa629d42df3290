"""An Ollama-API server over a llama.cpp server, for HA's own `ollama` integration.

No Ollama binary installs here, so the benchmark's `ha-pipeline` configuration
talks to this adapter instead: `/api/tags`, `/api/show`, `/api/version` and
streaming or whole `/api/chat` (NDJSON, Ollama's message and `tool_calls`
shape, a closing `done` line with the eval counts). The chat request goes to
llama.cpp's `/v1/chat/completions` with the tools, which llama.cpp renders with
the model's own chat template (the Qwen2.5 template Ollama's library ships).

Ollama's template parser turns a reply that is entirely a JSON tool call into
`tool_calls`; Qwen2.5-Coder writes calls bare, in a ```json fence or in
`<tool_call>` tags, and `parse_tool_calls` accepts those three. While the reply
so far could still be such a call it is held back; once it cannot, it streams
as text, as Ollama does. Sampling is Ollama's default unless the request's
`options` say otherwise.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
import datetime as dt
import json
import re
import time
from typing import Any

from aiohttp import ClientSession, ClientTimeout, web

from bench.scenarios.proxy import LocalServer

# Ollama's defaults (llm/server.go, api/types.go DefaultOptions) for what
# llama.cpp's server would otherwise choose differently.
OLLAMA_DEFAULT_OPTIONS: Mapping[str, Any] = {
    "temperature": 0.8,
    "top_k": 40,
    "top_p": 0.9,
    "min_p": 0.0,
    "repeat_penalty": 1.1,
    "repeat_last_n": 64,
}
# Ollama option -> llama.cpp request field, where the names differ.
_RENAMED_OPTIONS = {"num_predict": "max_tokens"}
# Options that configure the runner, not one request's sampling.
_RUNNER_OPTIONS = {"num_ctx", "num_batch", "num_gpu", "num_thread", "use_mmap"}
OLLAMA_VERSION = "0.12.0"

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
_CALL_STARTS = ("{", "[", "```", "<tool_call>")


def parse_tool_calls(text: str) -> list[dict[str, Any]] | None:
    """Ollama's `tool_calls` for a reply that is entirely tool calls, else None.

    Accepts one or more JSON objects `{"name": ..., "arguments": {...}}` (or a
    list of them), bare, in one ```json fence, or each in `<tool_call>` tags.
    """
    body = text.strip()
    if tagged := _TAGGED.findall(body):
        if _TAGGED.sub("", body).strip():
            return None  # prose around the tags
        body = "\n".join(tagged)
    elif fenced := _FENCE.match(body):
        body = fenced.group(1)
    objects = _json_objects(body)
    if not objects:
        return None
    calls = []
    for item in objects:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return None
        arguments = item.get("arguments", item.get("parameters", {}))
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments or "{}")
            except ValueError:
                return None
        if not isinstance(arguments, dict):
            return None
        calls.append({"function": {"name": item["name"], "arguments": arguments}})
    return calls


def _json_objects(body: str) -> list[Any]:
    """The JSON values `body` consists of (lists flattened), or [] if it is not."""
    decoder = json.JSONDecoder()
    values: list[Any] = []
    position = 0
    while position < len(body):
        try:
            value, position = decoder.raw_decode(body, position)
        except ValueError:
            return []
        values.extend(value if isinstance(value, list) else [value])
        while position < len(body) and body[position].isspace():
            position += 1
    return values


def could_be_tool_call(text: str) -> bool:
    """Whether a reply starting with `text` may still turn out to be a call."""
    head = text.lstrip()
    return not head or any(
        head.startswith(start) or start.startswith(head) for start in _CALL_STARTS
    )


def openai_request(request: Mapping[str, Any], model: str) -> dict[str, Any]:
    """The llama.cpp chat request for an Ollama `/api/chat` request."""
    options = {
        key: value
        for key, value in (request.get("options") or {}).items()
        if key not in _RUNNER_OPTIONS and value is not None
    }
    body: dict[str, Any] = {
        "model": model,
        "messages": [_openai_message(m) for m in request.get("messages") or ()],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    for key, value in (OLLAMA_DEFAULT_OPTIONS | options).items():
        body[_RENAMED_OPTIONS.get(key, key)] = value
    if body.get("max_tokens", 0) < 0:  # Ollama's -1: no limit but the server's
        del body["max_tokens"]
    if tools := request.get("tools"):
        body["tools"] = tools
    return body


def _openai_message(message: Mapping[str, Any]) -> dict[str, Any]:
    converted: dict[str, Any] = {
        "role": message["role"],
        "content": message.get("content") or "",
    }
    if calls := message.get("tool_calls"):
        converted["tool_calls"] = [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {
                    "name": call["function"]["name"],
                    "arguments": json.dumps(
                        call["function"].get("arguments") or {}, ensure_ascii=False
                    ),
                },
            }
            for index, call in enumerate(calls)
        ]
    return converted


class OllamaAdapter(LocalServer):
    """Serves Ollama's API on a free local port, answering from `upstream`."""

    def __init__(self, upstream: str, model: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.model = model  # the upstream model id
        self.name = f"{model}:latest"  # the Ollama model name HA selects

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/", self._root)
        app.router.add_get("/api/version", self._version)
        app.router.add_get("/api/tags", self._tags)
        app.router.add_post("/api/show", self._show)
        app.router.add_post("/api/chat", self._chat)
        await self._serve(app, ClientSession(timeout=ClientTimeout(total=None)))

    async def _root(self, _request: web.Request) -> web.Response:
        return web.Response(text="Ollama is running")

    async def _version(self, _request: web.Request) -> web.Response:
        return web.json_response({"version": OLLAMA_VERSION})

    def _details(self) -> dict[str, Any]:
        return {"format": "gguf", "family": "qwen2", "families": ["qwen2"]}

    async def _tags(self, _request: web.Request) -> web.Response:
        model = {
            "name": self.name,
            "model": self.name,
            "modified_at": _now(),
            "size": 0,
            "digest": "0" * 64,
            "details": self._details(),
        }
        return web.json_response({"models": [model]})

    async def _show(self, request: web.Request) -> web.Response:
        asked = (await request.json()).get("model")
        if asked not in (self.name, self.model):
            return web.json_response(
                {"error": f"model '{asked}' not found"}, status=404
            )
        return web.json_response(
            {
                "modified_at": _now(),
                "details": self._details(),
                "model_info": {},
                "capabilities": ["completion", "tools"],
            }
        )

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        lines = self._answer(openai_request(body, self.model))
        if not body.get("stream", True):
            message: dict[str, Any] = {"role": "assistant", "content": ""}
            last: dict[str, Any] = {}
            async for line in lines:
                message["content"] += line["message"].get("content", "")
                if calls := line["message"].get("tool_calls"):
                    message["tool_calls"] = calls
                last = line
            return web.json_response(last | {"message": message})
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(request)
        async for line in lines:
            await response.write(json.dumps(line, ensure_ascii=False).encode() + b"\n")
        await response.write_eof()
        return response

    async def _answer(self, body: dict[str, Any]) -> AsyncIterator[dict[str, Any]]:
        """Ollama's NDJSON lines for one llama.cpp streaming completion."""
        assert self._session is not None
        started = time.monotonic_ns()
        held = ""  # text that may still be a tool call
        streaming = False
        native: dict[int, dict[str, str]] = {}  # llama.cpp's own parsed calls
        usage: dict[str, Any] = {}
        timings: dict[str, Any] = {}
        finish = "stop"
        async with self._session.post(
            self.upstream + "/v1/chat/completions", json=body
        ) as upstream:
            if upstream.status != 200:
                raise web.HTTPBadGateway(text=await upstream.text())
            async for event in _sse_events(upstream.content):
                usage = event.get("usage") or usage
                timings = event.get("timings") or timings
                for choice in event.get("choices") or ():
                    finish = choice.get("finish_reason") or finish
                    delta = choice.get("delta") or {}
                    for call in delta.get("tool_calls") or ():
                        slot = native.setdefault(
                            call.get("index", 0), {"name": "", "arguments": ""}
                        )
                        function = call.get("function") or {}
                        slot["name"] += function.get("name") or ""
                        slot["arguments"] += function.get("arguments") or ""
                    text = delta.get("content") or ""
                    if streaming:
                        if text:
                            yield self._line({"content": text})
                        continue
                    held += text
                    if not could_be_tool_call(held):
                        streaming = True
                        yield self._line({"content": held})
        if native:
            calls = parse_tool_calls(
                json.dumps(
                    [
                        {"name": c["name"], "arguments": c["arguments"] or "{}"}
                        for c in native.values()
                    ]
                )
            )
            if calls:
                yield self._line({"content": "", "tool_calls": calls})
        elif not streaming and held:
            calls = parse_tool_calls(held)
            yield self._line(
                {"content": "", "tool_calls": calls} if calls else {"content": held}
            )
        yield self._line({"content": ""}) | {
            "done": True,
            "done_reason": "length" if finish == "length" else "stop",
            "total_duration": time.monotonic_ns() - started,
            "load_duration": 0,
            "prompt_eval_count": int(
                timings.get("prompt_n", usage.get("prompt_tokens", 0))
            ),
            "prompt_eval_duration": int(timings.get("prompt_ms", 0) * 1e6),
            "eval_count": int(usage.get("completion_tokens", 0)),
            "eval_duration": int(timings.get("predicted_ms", 0) * 1e6),
        }

    def _line(self, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "model": self.name,
            "created_at": _now(),
            "message": {"role": "assistant"} | message,
            "done": False,
        }


async def _sse_events(content: Any) -> AsyncIterator[dict[str, Any]]:
    """The JSON events of a server-sent-events body."""
    async for raw in content:
        line = raw.strip()
        if not line.startswith(b"data:"):
            continue
        data = line.removeprefix(b"data:").strip()
        if data.startswith(b"{"):
            yield json.loads(data)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat()
