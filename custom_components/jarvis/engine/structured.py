"""Text and structured data from one LLM call, for Home Assistant's AI tasks.

Structured data is asked for twice over: the request carries the JSON schema,
which servers that can (llama.cpp, Ollama) turn into constrained decoding, and
the prompt shows the keys, for servers that ignore the schema and for small
models. The reply is read leniently (bare JSON, a fence, prose around it),
checked by the caller's validator, and on failure asked for once more with the
problem named.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import aclosing
from dataclasses import replace
import json
from typing import Any

from .llm.base import ChatRequest, LLMClient
from .textproto import _schema_kind, first_json_object
from .types import JsonObject, Message

# Checks the data the model gave; raises ValueError with a message the model
# can act on, returns the data as the caller wants it (coerced, defaults in).
type Validator = Callable[[JsonObject], Any]

# One retry: a model that is wrong twice about the same shape rarely gets it
# right on a third go, and each try is a full generation.
ATTEMPTS = 2


class StructuredOutputError(Exception):
    """The model gave no valid data, even when told what was wrong."""

    def __init__(self, problem: str, reply: str) -> None:
        """`problem`: what was wrong with the last `reply`."""
        super().__init__(problem)
        self.problem = problem
        self.reply = reply


async def complete(client: LLMClient, request: ChatRequest) -> str:
    """The text of one whole reply; reasoning (thinking) is left out."""
    parts: list[str] = []
    async with aclosing(client.chat_stream(request)) as stream:
        async for chunk in stream:
            parts.append(chunk.content)
    return "".join(parts).strip()


def format_instructions(schema: Mapping[str, Any]) -> str:
    """The prompt section that asks for a JSON object of the schema's shape.

    Keys and kinds as a list with an example, not the schema itself: shorter,
    and shaped like the reply the model must write.
    """
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    lines = [
        "Reply with only one JSON object and no other text.",
        "Its keys:",
    ]
    for name, spec in properties.items():
        kind = _schema_kind(spec)
        if fmt := spec.get("format"):
            kind = f"{kind}, {fmt}"
        flag = "required" if name in required else "optional"
        text = f"- {json.dumps(name)} ({kind}, {flag})"
        if description := spec.get("description"):
            text += f": {description}"
        lines.append(text)
    lines.append(f"Example shape: {json.dumps(_example(properties))}")
    return "\n".join(lines)


def _example(properties: Mapping[str, Any]) -> JsonObject:
    """Each key with a stand-in of its type, for the model to copy the shape."""
    return {name: _stand_in(spec) for name, spec in properties.items()}


_STAND_INS: dict[Any, Any] = {"integer": 0, "number": 0, "boolean": False}


def _stand_in(spec: Mapping[str, Any]) -> Any:
    if enum := spec.get("enum"):
        return enum[0]  # a valid answer, where a placeholder would not be
    return _STAND_INS.get(spec.get("type"), "...")


def read_data(text: str, validate: Validator) -> Any:
    """The validated data in a reply; ValueError says what is wrong."""
    data = first_json_object(text)
    if data is None:
        raise ValueError("the reply holds no JSON object")
    return validate(data)


def _with_instructions(messages: Sequence[Message], instructions: str) -> list[Message]:
    """The messages with the format instructions ending the system message."""
    if messages and messages[0].role == "system":
        system = messages[0]
        return [
            replace(system, content=f"{system.content}\n\n{instructions}".strip()),
            *messages[1:],
        ]
    return [Message("system", instructions), *messages]


async def generate_data(
    client: LLMClient,
    request: ChatRequest,
    schema: JsonObject,
    validate: Validator,
) -> Any:
    """Data following `schema`, as `validate` returns it.

    Raises StructuredOutputError when no attempt gave valid data, and the
    client's LLMError when the server fails.
    """
    messages = _with_instructions(request.messages, format_instructions(schema))
    problem = reply = ""
    for _ in range(ATTEMPTS):
        reply = await complete(
            client, replace(request, messages=messages, json_schema=schema)
        )
        try:
            return read_data(reply, validate)
        except ValueError as err:
            problem = str(err)
        messages = [
            *messages,
            Message("assistant", reply),
            Message(
                "user",
                f"That reply is not valid: {problem}. "
                "Reply again with only the corrected JSON object.",
            ),
        ]
    raise StructuredOutputError(problem, reply)
