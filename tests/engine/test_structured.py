"""Text and structured data for AI tasks, over both clients and the scripted server."""

from __future__ import annotations

from typing import Any

import pytest

from custom_components.jarvis.engine.llm.base import ChatRequest, LLMClient, Sampling
from custom_components.jarvis.engine.structured import (
    StructuredOutputError,
    complete,
    format_instructions,
    generate_data,
    read_data,
)
from custom_components.jarvis.engine.types import JsonObject, Message
from tests.scripted_llm import Reply, ScriptedLLMServer

TODO_SCHEMA: JsonObject = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "description": "What to do"},
        "due_date": {"type": "string", "format": "date"},
        "priority": {"type": "string", "enum": ["low", "high"]},
        "minutes": {"type": "integer"},
    },
    "required": ["title", "due_date"],
}
VALID = '{"title": "Buy milk", "due_date": "2026-11-25"}'


def validate_todo(data: JsonObject) -> JsonObject:
    """What HA's voluptuous check does for the schema above, in small."""
    for key in ("title", "due_date"):
        if key not in data:
            raise ValueError(f"required key not provided @ data[{key!r}]")
    return {**data, "checked": True}


def request() -> ChatRequest:
    return ChatRequest(
        model="test-model",
        messages=[
            Message("system", "You help with tasks."),
            Message("user", "A to-do item: buy milk tomorrow."),
        ],
        sampling=Sampling(max_tokens=300),
    )


def sent_schema(body: dict[str, Any]) -> Any:
    """The schema a request carried, in either wire format."""
    if "response_format" in body:
        return body["response_format"]["json_schema"]["schema"]
    return body.get("format")


def test_instructions_list_the_keys_and_show_the_shape() -> None:
    text = format_instructions(TODO_SCHEMA)

    assert text.startswith("Reply with only one JSON object and no other text.")
    assert '- "title" (string, required): What to do' in text
    assert '- "due_date" (string, date, required)' in text
    assert '- "priority" (one of low/high, optional)' in text
    assert '- "minutes" (integer, optional)' in text
    assert text.endswith(
        'Example shape: {"title": "...", "due_date": "...", '
        '"priority": "low", "minutes": 0}'
    )


@pytest.mark.parametrize(
    "reply",
    [
        VALID,
        f"```json\n{VALID}\n```",
        f"Here is your item:\n{VALID}\nAnything else?",
        "{'title': 'Buy milk', 'due_date': '2026-11-25',}",
    ],
)
def test_data_is_read_from_json_fences_and_prose(reply: str) -> None:
    assert read_data(reply, validate_todo) == {
        "title": "Buy milk",
        "due_date": "2026-11-25",
        "checked": True,
    }


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        ("Buy milk tomorrow.", "the reply holds no JSON object"),
        ('{"title": "Buy milk"}', "required key not provided @ data['due_date']"),
    ],
)
def test_unreadable_or_invalid_data_says_what_is_wrong(
    reply: str, problem: str
) -> None:
    with pytest.raises(ValueError, match=problem.replace("[", r"\[")):
        read_data(reply, validate_todo)


async def test_valid_data_in_one_call_with_the_schema_sent(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(Reply(content=f"Sure! {VALID}"))

    data = await generate_data(client, request(), TODO_SCHEMA, validate_todo)

    assert data == {"title": "Buy milk", "due_date": "2026-11-25", "checked": True}
    (sent,) = scripted_llm.chat_requests
    body = sent["json"]
    # Constrained decoding where the server can, and the keys in the prompt.
    assert sent_schema(body) == TODO_SCHEMA
    system = body["messages"][0]["content"]
    assert system.startswith("You help with tasks.\n\nReply with only one JSON")
    assert body["messages"][1:] == [
        {"role": "user", "content": "A to-do item: buy milk tomorrow."}
    ]


async def test_invalid_data_is_asked_for_again_with_the_problem(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(content='{"title": "Buy milk"}'), Reply(content=f"```json\n{VALID}```")
    )

    data = await generate_data(client, request(), TODO_SCHEMA, validate_todo)

    assert data["due_date"] == "2026-11-25"
    first, second = (r["json"] for r in scripted_llm.chat_requests)
    assert second["messages"][: len(first["messages"])] == first["messages"]
    assert sent_schema(second) == TODO_SCHEMA
    assistant, retry = second["messages"][len(first["messages"]) :]
    assert assistant == {"role": "assistant", "content": '{"title": "Buy milk"}'}
    assert retry == {
        "role": "user",
        "content": "That reply is not valid: required key not provided @ "
        "data['due_date']. Reply again with only the corrected JSON object.",
    }


async def test_invalid_twice_is_an_error_with_the_last_reply(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(content='{"title": "Buy milk"}'), Reply(content="I cannot do that.")
    )

    with pytest.raises(StructuredOutputError) as caught:
        await generate_data(client, request(), TODO_SCHEMA, validate_todo)

    assert caught.value.problem == "the reply holds no JSON object"
    assert caught.value.reply == "I cannot do that."
    assert len(scripted_llm.chat_requests) == 2


async def test_text_is_the_whole_reply_without_reasoning(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(content="  Milk, eggs and bread.\n", thinking="A shopping list...")
    )

    assert await complete(client, request()) == "Milk, eggs and bread."
    body = scripted_llm.chat_requests[0]["json"]
    assert sent_schema(body) is None
