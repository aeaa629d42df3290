"""Grounded replies: a sentence's claims about the home, checked against it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from custom_components.jarvis.engine.grounding import (
    Device,
    HouseView,
    ground,
    holds,
    kinds_asked,
    named,
    state_of,
    states_asked,
)
from custom_components.jarvis.engine.llm.base import LLMClient
from custom_components.jarvis.engine.loop import (
    LocalStepHost,
    LoopSettings,
    ReplyLoop,
    TurnResult,
)
from custom_components.jarvis.engine.output import sentences
from custom_components.jarvis.engine.types import JsonObject, Message
from tests.engine.test_loop import TOOLS, make_host
from tests.scripted_llm import Reply, ScriptedLLMServer

HOME = (
    Device(("Front Door",), "lock", "locked"),
    Device(("Haustür",), "lock", "locked"),
    Device(("Entry Lock", "Side Entrance"), "lock", "locked"),
    # A lock and its sensors share the device's name.
    Device(("Smart Lock",), "lock", "locked"),
    Device(("Smart Lock",), "binary_sensor", "off", {"device_class": "lock"}),
    Device(("Smart Lock",), "sensor", "87", {"device_class": "battery"}),
    Device(("Hall Lock",), "lock", "jammed"),
    Device(("Garden Light",), "light", "on"),
    Device(("Kitchen Lights",), "light", "off"),
    Device(("Garden Valve",), "valve", "closed"),
    Device(("Living Room Curtains",), "cover", "open", acted=True),
    Device(
        ("Outdoor Speakers",), "media_player", "playing", {"is_volume_muted": False}
    ),
    Device(("Music",), "media_player", "paused"),
    Device(("Bedroom TV",), "media_player", "off"),
    Device(("Back Door",), "binary_sensor", "on", {"device_class": "door"}),
)


def home() -> Sequence[Device]:
    return HOME


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "The front door is locked."),
        ("en", "The smart lock is locked."),
        ("en", "Kitchen Lights and the garden valve are off and closed."),
        ("en", "I opened the living room curtains."),
        ("en", "Garden Light is on, and the music is paused."),
        ("en", "The outdoor speakers are playing."),
        # Questions, negations, suppositions: not judged.
        ("en", "Is the front door unlocked?"),
        ("en", "The front door is not unlocked."),
        ("en", "If the front door is unlocked, I will lock it."),
        ("en", "Maybe the front door is unlocked."),
        # Names the home does not have, states Jarvis cannot judge.
        ("en", "The garage door is open."),
        ("en", "Hello! How can I help you today?"),
        ("en", "Hall Lock is unlocked."),
        ("en", "The garden light is at 50 percent."),
        ("de", "Die Haustür ist abgeschlossen."),
        ("de", "Ist die Haustür aufgeschlossen?"),
        ("de", "Die Haustür ist nicht aufgeschlossen."),
        # What the model is about to do, in the present tense.
        ("de", "Ich schalte Garden Light aus."),
        ("nl", "Ik zet Garden Light uit."),
        ("en", "Turning off Garden Light now."),
        ("es", "La Front Door no está desbloqueada."),
        ("fr", "Est-ce que Front Door est verrouillée ?"),
        ("it", "Front Door è bloccata."),
        ("nl", "Front Door is op slot."),
        ("pt", "A Front Door está trancada."),
    ],
)
def test_true_or_unjudged_claims_are_kept(language: str, said: str) -> None:
    assert ground(said, language, home).text == said


@pytest.mark.parametrize(
    ("language", "said", "truth"),
    [
        ("en", "The entry lock is already unlocked.", "Entry Lock is locked."),
        ("en", "The smart lock is unlocked.", "Smart Lock is locked."),
        ("en", "The side entrance is unlocked.", "Entry Lock is locked."),
        ("en", "Done, I turned off Garden Light.", "I did not change Garden Light."),
        (
            "en",
            "The outdoor speakers have been muted.",
            "I did not change Outdoor Speakers.",
        ),
        ("en", "The music is already playing.", "Music is paused."),
        ("en", "The bedroom TV is playing.", "Bedroom TV is off."),
        ("en", "Back Door is closed.", "Back Door is open."),
        (
            "en",
            "I turned off the kitchen lights and the garden light.",
            "I did not change Garden Light.",
        ),
        ("en", "Kitchen Lights and Garden Light are off.", "Garden Light is on."),
        ("de", "Die Haustür ist aufgeschlossen.", "Haustür ist abgeschlossen."),
        (
            "de",
            "Ich habe Garden Light ausgeschaltet.",
            "Ich habe Garden Light nicht verändert.",
        ),
        # A German turn that the model answered in English: the truth is
        # said in German, the user's language.
        ("de", "The front door is unlocked.", "Front Door ist abgeschlossen."),
        ("es", "He apagado Garden Light.", "No he cambiado Garden Light."),
        ("es", "La Front Door está desbloqueada.", "Estado de Front Door: bloqueado."),
        ("fr", "La Front Door est déverrouillée.", "État de Front Door : verrouillé."),
        ("it", "Front Door è sbloccata.", "Stato di Front Door: bloccato."),
        ("nl", "Front Door is ontgrendeld.", "Front Door is op slot."),
        ("pt", "Desliguei Garden Light.", "Não alterei Garden Light."),
    ],
)
def test_false_claims_are_replaced_with_the_truth(
    language: str, said: str, truth: str
) -> None:
    assert ground(f"{said} ", language, home).text == f"{truth} "


# One lock and one media player: each may be named by its kind.
SMALL_HOME = (
    Device(("Entry Lock",), "lock", "locked"),
    Device(("Living Room Speaker",), "media_player", "playing"),
    Device(("Living Room Curtains",), "cover", "open"),
)


@pytest.mark.parametrize(
    ("language", "said", "spoken"),
    [
        ("en", "The lock is already locked.", "The lock is already locked."),
        ("en", "The lock is unlocked.", "Entry Lock is locked."),
        ("en", "The music is already paused.", "Living Room Speaker is playing."),
        ("de", "Das Schloss ist aufgeschlossen.", "Entry Lock ist abgeschlossen."),
        (
            "es",
            "La música está en pausa.",
            "Estado de Living Room Speaker: reproduciendo.",
        ),
    ],
)
def test_a_kind_names_the_one_device_of_its_domain(
    language: str, said: str, spoken: str
) -> None:
    assert ground(said, language, lambda: SMALL_HOME).text == spoken


def test_a_kind_of_several_devices_names_none() -> None:
    assert ground("The lock is unlocked.", "en", home).text == "The lock is unlocked."


def test_named_devices_by_name_and_by_the_kind_of_the_only_one() -> None:
    said = "Desk Lamp is on; the Smart Lock and the music are off. Smart Lock!"
    devices = (
        *HOME,
        Device(("Desk Lamp",), "light", "on"),
    )
    assert [d.names[0] for d in named(said, devices, "en")] == [
        "Desk Lamp",
        "Smart Lock",
        "Smart Lock",
        "Smart Lock",
        "Music",
    ]
    assert [d.domain for d in named("La música está en pausa.", SMALL_HOME, "es")] == [
        "media_player"
    ]


def test_the_home_is_read_only_for_a_sentence_that_claims_something() -> None:
    def unread() -> Sequence[Device]:
        raise AssertionError("read")

    assert ground("Sure, happy to help.", "en", unread).text == "Sure, happy to help."


def test_a_claimed_action_no_call_did_is_marked_undone() -> None:
    assert ground("I turned off Garden Light.", "en", home).undone
    assert not ground("The front door is unlocked.", "en", home).undone


@pytest.mark.parametrize(
    ("state", "claim", "expected"),
    [
        ("opening", "open", True),
        ("closing", "open", False),
        ("unavailable", "open", None),
        ("open", "on", None),
    ],
)
def test_holds_by_domain(state: str, claim: str, expected: bool | None) -> None:
    assert holds(Device(("Garage",), "cover", state), claim) is expected


def test_sentences_keep_their_spaces() -> None:
    assert sentences("One. Two!  Three") == ["One. ", "Two!  ", "Three"]


async def run_grounded(
    client: LLMClient, host: LocalStepHost, request: str, house: HouseView
) -> TurnResult:
    """One English turn of the loop, its reply checked against `house`."""
    return await ReplyLoop(client, LoopSettings(model="test-model")).run(
        system_prompt="You are Jarvis.",
        history=[Message("user", request)],
        tools=TOOLS,
        host=host,
        language="en",
        house=house,
    )


async def test_the_loop_speaks_each_sentence_checked_as_it_comes(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Kitchen Lights"})]),
        Reply(
            content="I turned on Kitchen Lights. I turned on Garden Light. "
            "The front door is unlocked."
        ),
    )
    seen: list[Sequence[JsonObject]] = []

    def house(results: Sequence[JsonObject]) -> Sequence[Device]:
        seen.append(results)
        acted = any(result.get("name") == "Kitchen Lights" for result in results)
        return [
            Device(("Kitchen Lights",), "light", "on", acted=acted),
            Device(("Garden Light",), "light", "off"),
            Device(("Front Door",), "lock", "locked"),
        ]

    host, _ = make_host()
    # A command and a question: the model, not Jarvis, says what was done.
    result = await run_grounded(
        client, host, "turn on the kitchen lights and tell me the door", house
    )

    assert result.text == (
        "I turned on Kitchen Lights. I did not change Garden Light. "
        "Front Door is locked."
    )
    # Sentence by sentence, as the model writes them.
    assert host.text_deltas[0] == "I turned on Kitchen Lights. "
    assert seen[-1] == [{"success": True, "name": "Kitchen Lights"}]


async def test_a_claim_before_its_call_is_held_and_dropped_when_the_call_comes(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.script(
        Reply(
            content="I turned on Kitchen Lights.",
            tool_calls=[("HassTurnOn", {"name": "Kitchen Lights"})],
        ),
        Reply(content="Kitchen Lights are on now."),
    )
    calls: list[Sequence[JsonObject]] = []

    def house(results: Sequence[JsonObject]) -> Sequence[Device]:
        calls.append(results)
        state = "on" if results else "off"
        return [Device(("Kitchen Lights",), "light", state, acted=bool(results))]

    host, turned_on = make_host()
    result = await run_grounded(client, host, "turn on the kitchen lights", house)

    assert turned_on == [{"name": "Kitchen Lights"}]
    # Not "I did not change Kitchen Lights.": the call came after it.
    assert result.text == "Kitchen Lights are on now."


@pytest.mark.parametrize(
    ("text", "language", "states", "kinds"),
    [
        ("is anything unlocked?", "en", ["unlocked"], ["lock"]),
        ("¿hay algo abierto?", "es", ["open"], ["cover", "valve"]),
        ("ist irgendwas offen?", "de", ["open"], ["cover", "valve"]),
        ("is anything playing?", "en", ["playing"], ["media_player"]),
        # "on" is the state of half the home: no kinds to look up.
        ("is anything on?", "en", ["on"], []),
        ("how warm is it?", "en", [], []),
    ],
)
def test_states_and_kinds_asked(
    text: str, language: str, states: list[str], kinds: list[str]
) -> None:
    assert states_asked(text, language) == states
    assert kinds_asked(text, language) == kinds


@pytest.mark.parametrize(
    ("device", "claim", "state"),
    [
        (Device(("Back Door",), "lock", "unlocked"), "locked", "unlocked"),
        (Device(("Back Door",), "lock", "locked"), "locked", "locked"),
        (Device(("Hall Lock",), "lock", "jammed"), "locked", None),
        (Device(("Garden Valve",), "valve", "open"), "closed", "open"),
    ],
)
def test_state_of(device: Device, claim: str, state: str | None) -> None:
    assert state_of(device, claim) == state
