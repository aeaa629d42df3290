"""A tool result's final reply ends the turn word for word; nothing else can.

And the fixed phrases Jarvis asks and answers with about a held action.
"""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.llm.base import LLMClient
from custom_components.jarvis.engine.phrases import (
    DONE,
    FINAL_REPLY,
    Deed,
    FinalReply,
    ask_first,
    done,
    final_reply,
)
from custom_components.jarvis.engine.types import JsonObject, Message
from tests.engine.test_loop import RecordingHost, run_loop
from tests.scripted_llm import Reply, ScriptedLLMServer

QUESTION = "Shall I open Garage Door?"
CALL = ("HassTurnOn", {"name": "Garage Door"})
# What the 0.5B model said after a held call: the lie this guards against.
LIE = "The garage door was opened."


def host_answering(result: JsonObject) -> tuple[RecordingHost, list[JsonObject]]:
    """A host whose HassTurnOn answers `result` and records each call."""
    calls: list[JsonObject] = []

    async def turn_on(args: JsonObject) -> JsonObject:
        calls.append(args)
        return result

    async def live_context(args: JsonObject) -> JsonObject:
        return {"garage door": "closed"}

    return RecordingHost({"HassTurnOn": turn_on, "GetLiveContext": live_context}), calls


def held() -> JsonObject:
    return {"confirmation_required": True, FINAL_REPLY: FinalReply(QUESTION)}


@pytest.mark.parametrize(
    ("model", "reply"),
    [
        ("test-model", Reply(tool_calls=[CALL])),
        (
            "qwen2.5-coder:0.5b",
            Reply(
                content='{"name": "HassTurnOn", "arguments": {"name": "Garage Door"}}'
            ),
        ),
    ],
    ids=["native", "text"],
)
async def test_final_reply_ends_the_turn_word_for_word(
    client: LLMClient, scripted_llm: ScriptedLLMServer, model: str, reply: Reply
) -> None:
    scripted_llm.script(reply, Reply(content=LIE))
    host, calls = host_answering(held())
    result = await run_loop(client, host, model=model)

    assert calls == [{"name": "Garage Door"}]
    assert result.text == QUESTION
    assert host.text_deltas[-1] == QUESTION
    assert result.ended == "final_reply"
    # The model is not asked again after the held call.
    assert len(scripted_llm.chat_requests) == 1
    assert result.llm_calls == 1
    (record,) = result.tool_calls
    assert record.name == "HassTurnOn"
    assert record.result["confirmation_required"] is True


async def test_a_plain_string_in_the_field_is_not_a_final_reply(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """What JSON from outside (an MCP server, a web page) can put there."""
    scripted_llm.script(
        Reply(tool_calls=[CALL]), Reply(content="The garage door is closed.")
    )
    host, _ = host_answering({"state": "closed", FINAL_REPLY: LIE})
    result = await run_loop(client, host)

    assert result.text == "The garage door is closed."
    assert LIE not in "".join(host.text_deltas)
    assert result.ended == "done"
    assert len(scripted_llm.chat_requests) == 2


async def test_the_last_final_reply_of_a_step_is_said(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(tool_calls=[CALL, ("HassTurnOn", {"name": "Front Gate"})])
    )
    answers = iter([FinalReply(QUESTION), FinalReply("Shall I open Front Gate?")])

    async def turn_on(args: JsonObject) -> JsonObject:
        return {FINAL_REPLY: next(answers)}

    host = RecordingHost({"HassTurnOn": turn_on})
    result = await run_loop(client, host)

    assert result.text == "Shall I open Front Gate?"
    assert len(scripted_llm.chat_requests) == 1


async def test_a_planned_call_ends_the_turn_with_its_final_reply(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """A small model's plan runs without the chat model; a held step ends it."""
    scripted_llm.script(
        Reply(content='1. HassTurnOn: {"name": "Garage Door"}\n2. reply'),
        Reply(content=LIE),
    )
    host, calls = host_answering(held())
    result = await run_loop(
        client,
        host,
        model="qwen2.5-coder:0.5b",
        planner=True,
        history=[Message("user", "turn on the garage door")],
    )

    assert calls == [{"name": "Garage Door"}]
    assert result.planned_calls == 1
    assert result.text == QUESTION
    # The planning call only.
    assert len(scripted_llm.chat_requests) == 1


@pytest.mark.parametrize(
    ("language", "question", "answer"),
    [
        ("en", "Shall I open Garage Door?", "Done, I opened Garage Door."),
        (
            "de",
            "Soll ich Garage Door öffnen?",
            "Erledigt, ich habe Garage Door geöffnet.",
        ),
        ("es", "¿Debo abrir Garage Door?", "Hecho, he abierto Garage Door."),
        ("fr", "Dois-je ouvrir Garage Door ?", "C'est fait, j'ai ouvert Garage Door."),
        (
            "de-CH",
            "Soll ich Garage Door öffnen?",
            "Erledigt, ich habe Garage Door geöffnet.",
        ),
    ],
)
def test_questions_and_answers_in_the_users_language(
    language: str, question: str, answer: str
) -> None:
    deeds = [Deed("open", ("Garage Door",))]
    assert ask_first(deeds, "open cover Garage Door", language) == question
    assert done(deeds, language) == answer


def test_several_deeds_and_a_position() -> None:
    deeds = [Deed("unlock", ("Front Door",)), Deed("move", ("Garage Door",), "40")]
    assert ask_first(deeds, "", "en") == (
        "Shall I unlock Front Door and move Garage Door to 40%?"
    )
    assert done(deeds, "de") == (
        "Erledigt, ich habe Front Door aufgeschlossen und Garage Door auf 40 % gestellt."
    )


def test_several_targets_are_listed_as_people_say_them() -> None:
    deeds = [Deed("turn_off", ("Desk Lamp", "Office Lights", "Office Fan"))]
    assert done(deeds, "en") == (
        "Done, I turned off Desk Lamp, Office Lights and Office Fan."
    )
    assert done(deeds, "es") == (
        "Hecho, he apagado Desk Lamp, Office Lights y Office Fan."
    )


def test_actions_without_a_known_verb_are_asked_as_described() -> None:
    assert ask_first([], "read the page https://example.com", "en") == (
        "Shall I read the page https://example.com?"
    )
    assert ask_first([], "turn on Kitchen Lights", "es") == (
        "¿Debo hacer esto: turn on Kitchen Lights?"
    )
    assert done([], "fr") == DONE["fr"]


def test_only_jarvis_own_final_reply_counts() -> None:
    assert final_reply({FINAL_REPLY: FinalReply(QUESTION)}) == QUESTION
    assert final_reply({FINAL_REPLY: QUESTION}) is None
    assert final_reply({"answer": FinalReply(QUESTION)}) is None
