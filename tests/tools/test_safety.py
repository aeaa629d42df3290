"""Held actions end the turn with Jarvis's own question; a plain yes or no to it
is answered without the model, in the user's language.
"""

from __future__ import annotations

from dataclasses import dataclass

from homeassistant.components.conversation import trace
from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.core import HomeAssistant
import pytest

from custom_components.jarvis.engine.answers import plain_answer
from custom_components.jarvis.engine.phrases import FINAL_REPLY, HOLD_GONE, NOT_DONE
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.test_telemetry import jarvis_detail
from tests.tools.conftest import GARAGE, setup_home, setup_jarvis
from tests.tools.test_injection import converse, logged_results, speech

pytestmark = pytest.mark.usefixtures("ha_core")

OPEN_GARAGE = ("HassTurnOn", {"name": "Garage Door"})
# What Qwen2.5-Coder 0.5B said after the held call: the door stayed closed.
LIE = Reply(content="The garage door was opened.")


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("yes", True),
        ("Yes, please!", True),
        ("ja", True),
        ("Ja bitte.", True),
        ("¡Sí!", True),
        ("oui s'il vous plaît", True),
        ("okay, do it", True),
        ("no", False),
        ("No, don't.", False),
        ("cancel", False),
        ("nein danke", False),
        ("non", False),
        ("yes, and turn on the lights", None),
        ("yes, open it", None),
        ("what's the weather?", None),
        ("", None),
    ],
)
def test_plain_answers(text: str, answer: bool | None) -> None:
    assert plain_answer(text) is answer


@pytest.fixture
async def agent(hass: HomeAssistant, scripted_llm: ScriptedLLMServer) -> str:
    """Demo home with its garage door exposed, and a Jarvis agent."""
    await setup_home(hass)
    async_expose_entity(hass, "conversation", GARAGE, True)
    await setup_jarvis(hass, scripted_llm)
    return next(
        e for e in hass.states.async_entity_ids("conversation") if "jarvis" in e
    )


async def test_held_action_asks_and_a_plain_yes_runs_it_without_the_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent: str
) -> None:
    scripted_llm.script(Reply(tool_calls=[OPEN_GARAGE]), LIE)
    trace.async_clear_traces()
    with logged_results(hass) as results:
        first = await converse(hass, agent, "open the garage door")

    assert speech(first) == "Shall I open Garage Door?"
    assert first["continue_conversation"]
    assert hass.states.get(GARAGE).state == "closed"
    # The model is not asked again once the action is held.
    assert len(scripted_llm.chat_requests) == 1
    (held,) = results
    assert held["confirmation_required"] is True
    assert held[FINAL_REPLY] == speech(first)
    detail = jarvis_detail()
    assert (detail["path"], detail["ended"]) == ("loop", "final_reply")
    assert [(c["name"], c["success"]) for c in detail["tool_calls"]] == [
        ("HassTurnOn", True)
    ]

    with logged_results(hass) as results:
        second = await converse(hass, agent, "yes", first["conversation_id"])

    assert hass.states.get(GARAGE).state in {"opening", "open"}
    assert speech(second) == "Done, I opened Garage Door."
    assert len(scripted_llm.chat_requests) == 1
    # Exactly the held call ran: HA's intent was not matched again by name.
    assert results[0]["success"] is True
    detail = jarvis_detail()
    assert (detail["path"], detail["llm_calls"], detail["protocol"]) == (
        "confirmation",
        0,
        None,
    )
    assert [(c["name"], c["success"]) for c in detail["tool_calls"]] == [
        ("confirm_action", True)
    ]
    events = trace.async_get_traces()[-1].as_dict()["events"]
    assert [
        e["data"]["tool_name"] for e in events if e["event_type"] == "tool_call"
    ] == ["confirm_action"]


@dataclass(frozen=True)
class Exchange:
    """A held request and the yes to it, in one language."""

    language: str
    request: str
    question: str
    yes: str
    answer: str


@pytest.mark.parametrize(
    "case",
    [
        Exchange(
            "de",
            "Öffne das Garage Door",
            "Soll ich Garage Door öffnen?",
            "Ja, bitte",
            "Erledigt, ich habe Garage Door geöffnet.",
        ),
        Exchange(
            "es",
            "Abre la Garage Door",
            "¿Debo abrir Garage Door?",
            "sí",
            "Hecho, he abierto Garage Door.",
        ),
        Exchange(
            "fr",
            "Ouvre la Garage Door",
            "Dois-je ouvrir Garage Door ?",
            "oui",
            "C'est fait, j'ai ouvert Garage Door.",
        ),
    ],
    ids=lambda case: case.language,
)
async def test_question_and_answer_in_the_users_language(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent: str, case: Exchange
) -> None:
    scripted_llm.script(Reply(tool_calls=[OPEN_GARAGE]), LIE)
    first = await converse(hass, agent, case.request, language=case.language)
    assert speech(first) == case.question

    second = await converse(
        hass, agent, case.yes, first["conversation_id"], case.language
    )
    assert speech(second) == case.answer
    assert hass.states.get(GARAGE).state in {"opening", "open"}
    assert len(scripted_llm.chat_requests) == 1


async def test_a_plain_no_drops_it_and_a_later_yes_goes_to_the_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent: str
) -> None:
    scripted_llm.script(Reply(tool_calls=[OPEN_GARAGE]))
    first = await converse(hass, agent, "open the garage door")
    refused = await converse(hass, agent, "no thanks", first["conversation_id"])

    assert speech(refused) == NOT_DONE["en"]
    assert len(scripted_llm.chat_requests) == 1
    detail = jarvis_detail()
    assert (detail["path"], detail["tool_calls"]) == ("confirmation", [])

    # Nothing waits now: a yes is the model's to answer.
    scripted_llm.script(Reply(content="Yes to what?"))
    later = await converse(hass, agent, "yes", first["conversation_id"])
    assert speech(later) == "Yes to what?"
    assert len(scripted_llm.chat_requests) == 2
    assert hass.states.get(GARAGE).state == "closed"


async def test_a_yes_to_another_question_goes_to_the_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent: str
) -> None:
    scripted_llm.script(
        Reply(tool_calls=[OPEN_GARAGE]),
        Reply(content="Sunny. Would you like tomorrow's forecast too?"),
        Reply(content="Tomorrow is sunny too."),
    )
    first = await converse(hass, agent, "open the garage door")
    await converse(hass, agent, "what's the weather?", first["conversation_id"])
    third = await converse(hass, agent, "yes", first["conversation_id"])

    assert speech(third) == "Tomorrow is sunny too."
    assert len(scripted_llm.chat_requests) == 3
    assert hass.states.get(GARAGE).state == "closed"


async def test_an_entity_no_longer_exposed_at_the_yes_is_not_acted_on(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, agent: str
) -> None:
    open_cover = {"domain": "cover", "service": "open_cover", "entity_id": GARAGE}
    scripted_llm.script(Reply(tool_calls=[("call_service", open_cover)]))
    first = await converse(hass, agent, "open the garage door")
    assert speech(first) == "Shall I open Garage Door?"

    async_expose_entity(hass, "conversation", GARAGE, False)
    second = await converse(hass, agent, "yes", first["conversation_id"])

    assert speech(second) == HOLD_GONE["en"].format(names="Garage Door")
    assert hass.states.get(GARAGE).state == "closed"
    assert len(scripted_llm.chat_requests) == 1
