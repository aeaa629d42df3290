"""The other side of issue #12: a sensitive command the user confirms always
runs, even where names are shared the way real devices share them, and with
no LLM call where Home Assistant's own matcher understands it."""

from __future__ import annotations

from dataclasses import dataclass

from homeassistant.components.homeassistant.exposed_entities import (
    async_expose_entity,
)
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
)
from homeassistant.setup import async_setup_component
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.jarvis.engine.router import ToolRouter
from tests.engine.test_router import CATALOGUE
from tests.scripted_llm import Reply, ScriptedLLMServer
from tests.tools.conftest import setup_jarvis
from tests.tools.test_injection import speech

from .conftest import (
    ALARM,
    ask,
    changed,
    guarded,
    jarvis_agent,
    run_services,
    setup_house,
)

pytestmark = pytest.mark.usefixtures("ha_core")

SMART_LOCK = "lock.smart_lock"
SMART_LOCK_SENSOR = "binary_sensor.smart_lock"
OPENER = "cover.garage_door_opener"
OPENER_LIGHT = "light.garage_door_opener"
OPENER_SENSOR = "sensor.garage_door_opener"
FRONT_DOOR = "lock.front_door"
ENTRY_LOCK = "lock.entry_lock"
DEADBOLT = "lock.deadbolt"  # in the Back Door area, called by it


def _optimistic_lock(name: str, unique_id: str) -> dict[str, object]:
    return {
        "name": name,
        "unique_id": unique_id,
        "optimistic": True,
        "lock": [],
        "unlock": [],
    }


# Entities as real integrations name them: a device's entities all called
# by the device's name, and locks called by the door or area they are in.
TEMPLATES = {
    "template": [
        {
            "lock": [
                _optimistic_lock("Smart Lock", "smart_lock"),
                _optimistic_lock("Front Door", "front_door"),
                _optimistic_lock("Entry Lock", "entry_lock"),
                _optimistic_lock("Deadbolt", "deadbolt"),
            ],
            "binary_sensor": [
                {
                    "name": "Smart Lock",
                    "unique_id": "smart_lock_state",
                    "device_class": "lock",
                    "state": "{{ is_state('lock.smart_lock', 'unlocked') }}",
                }
            ],
            "cover": [
                {
                    "name": "Garage Door Opener",
                    "unique_id": "opener_door",
                    "device_class": "garage",
                    "optimistic": True,
                    "open_cover": [],
                    "close_cover": [],
                }
            ],
            "light": [
                {
                    "name": "Garage Door Opener",
                    "unique_id": "opener_light",
                    "optimistic": True,
                    "turn_on": [],
                    "turn_off": [],
                }
            ],
            "sensor": [
                {
                    "name": "Garage Door Opener",
                    "unique_id": "opener_temperature",
                    "state": "21",
                    "unit_of_measurement": "°C",
                    "device_class": "temperature",
                }
            ],
        }
    ]
}


async def _devices(hass: HomeAssistant) -> None:
    """The lock and its sensor on one device, the opener's entities on
    another, and each door lock in its area."""
    entry = MockConfigEntry(domain="test")
    entry.add_to_hass(hass)
    devices, entities = dr.async_get(hass), er.async_get(hass)
    areas = ar.async_get(hass)
    for name, members in (
        ("Smart Lock", (SMART_LOCK, SMART_LOCK_SENSOR)),
        ("Garage Door Opener", (OPENER, OPENER_LIGHT, OPENER_SENSOR)),
    ):
        device = devices.async_get_or_create(
            config_entry_id=entry.entry_id, identifiers={("test", name)}, name=name
        )
        for entity_id in members:
            entities.async_update_entity(entity_id, device_id=device.id)
    for area, entity_id in (("Front Door", FRONT_DOOR), ("Entry", ENTRY_LOCK)):
        entities.async_update_entity(entity_id, area_id=areas.async_create(area).id)
    back = areas.async_create("Back Door", aliases={"Hintereingang", "entrada trasera"})
    entities.async_update_entity(DEADBOLT, area_id=back.id)


async def _shut(hass: HomeAssistant) -> None:
    await run_services(
        hass,
        *(("lock.lock", e) for e in (SMART_LOCK, FRONT_DOOR, ENTRY_LOCK, DEADBOLT)),
        ("cover.close_cover", OPENER),
        ("light.turn_off", OPENER_LIGHT),
    )


@pytest.fixture
async def house(hass: HomeAssistant, ha_core: None) -> None:
    """The house, everything in it exposed."""
    assert await async_setup_component(hass, "template", TEMPLATES)
    await hass.async_block_till_done()
    await _devices(hass)
    await _shut(hass)
    for entity_id in hass.states.async_entity_ids():
        async_expose_entity(hass, "conversation", entity_id, True)


def _house_states(hass: HomeAssistant) -> dict[str, str]:
    """The states of the house's own entities (not Jarvis's sensors)."""
    return {
        entry.entity_id: hass.states.get(entry.entity_id).state
        for entry in er.async_get(hass).entities.values()
        if entry.platform == "template"
    }


async def _agent(hass: HomeAssistant, server: ScriptedLLMServer, fast: bool) -> str:
    """A Jarvis agent, with HA's matcher first (`fast`) or the model only."""
    await setup_jarvis(hass, server, prefer_local=fast)
    return jarvis_agent(hass)


@dataclass(frozen=True, slots=True)
class Command:
    """A sensitive command, Jarvis's question, the yes, and what it opens."""

    language: str
    text: str
    question: str
    yes: str
    opens: str
    to: str


COMMANDS = [
    Command(
        "en",
        "unlock the back door",
        "Shall I unlock Deadbolt?",
        "yes",
        DEADBOLT,
        "unlocked",
    ),
    # Not in German: HA's German area sentences for locks require a lock's
    # context that an area cannot give (intents 2026.1), so its strict matcher
    # never understands them ("Entsperre die Tür im Hintereingang").
    Command(
        "es",
        "abre las cerraduras de la entrada trasera",
        "¿Debo desbloquear Deadbolt?",
        "sí",
        DEADBOLT,
        "unlocked",
    ),
    Command(
        "en",
        "unlock smart lock",
        "Shall I unlock Smart Lock?",
        "yes",
        SMART_LOCK,
        "unlocked",
    ),
    Command(
        "en",
        "open the garage door opener",
        "Shall I open Garage Door Opener?",
        "yes please",
        OPENER,
        "open",
    ),
    Command(
        "en",
        "unlock the front door",
        "Shall I unlock Front Door?",
        "yes",
        FRONT_DOOR,
        "unlocked",
    ),
    Command(
        "en",
        "unlock the entry lock",
        "Shall I unlock Entry Lock?",
        "sure",
        ENTRY_LOCK,
        "unlocked",
    ),
    Command(
        "de",
        "Entsperre Smart Lock",
        "Soll ich Smart Lock aufschließen?",
        "ja",
        SMART_LOCK,
        "unlocked",
    ),
    Command(
        "de",
        "Öffne Garage Door Opener",
        "Soll ich Garage Door Opener öffnen?",
        "ja, bitte",
        OPENER,
        "open",
    ),
    Command(
        "de",
        "Schließ Front Door auf",
        "Soll ich Front Door aufschließen?",
        "ja",
        FRONT_DOOR,
        "unlocked",
    ),
    Command(
        "es",
        "abre la cerradura de Smart Lock",
        "¿Debo desbloquear Smart Lock?",
        "sí",
        SMART_LOCK,
        "unlocked",
    ),
    Command(
        "es",
        "abre Garage Door Opener",
        "¿Debo abrir Garage Door Opener?",
        "sí",
        OPENER,
        "open",
    ),
    Command(
        "es",
        "quita el cerrojo de Entry Lock",
        "¿Debo desbloquear Entry Lock?",
        "sí, por favor",
        ENTRY_LOCK,
        "unlocked",
    ),
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: f"{c.language}-{c.text}")
@pytest.mark.usefixtures("house")
async def test_a_confirmed_command_runs_without_the_model(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer, command: Command
) -> None:
    agent = await _agent(hass, scripted_llm, fast=True)
    hass.config.language = command.language
    others = {
        state.entity_id: state.state
        for state in hass.states.async_all()
        if state.entity_id != command.opens
        and state.domain in ("lock", "cover", "light")
    }
    first = await ask(hass, agent, command.text, language=command.language)
    assert speech(first) == command.question
    assert hass.states.get(command.opens).state != command.to

    await ask(
        hass, agent, command.yes, first["conversation_id"], language=command.language
    )

    assert hass.states.get(command.opens).state == command.to
    assert {
        entity_id: hass.states.get(entity_id).state for entity_id in others
    } == others
    assert scripted_llm.chat_requests == []


@pytest.mark.parametrize(
    ("request_text", "call", "opens"),
    [
        ("unlock smart lock", ("HassTurnOff", {"name": "Smart Lock"}), SMART_LOCK),
        (
            "open the garage door opener",
            ("HassTurnOn", {"name": "Garage Door Opener"}),
            OPENER,
        ),
    ],
    ids=["smart-lock", "garage-door-opener"],
)
@pytest.mark.usefixtures("house")
async def test_the_models_call_on_a_shared_name_runs_exactly_after_the_yes(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    request_text: str,
    call: tuple[str, dict[str, str]],
    opens: str,
) -> None:
    """Without the fast path the model makes the call. The request's verb picks
    the domain among the entities sharing the name, and after the yes exactly
    the held call runs, not a match of the name again (DUPLICATE_NAME)."""
    agent = await _agent(hass, scripted_llm, fast=False)
    scripted_llm.script(Reply(tool_calls=[call]), Reply(content="Done."))
    before = _house_states(hass)
    first = await ask(hass, agent, request_text)
    assert speech(first) in {
        "Shall I unlock Smart Lock?",
        "Shall I open Garage Door Opener?",
    }

    await ask(hass, agent, "yes", first["conversation_id"])

    moved = {e for e, state in _house_states(hass).items() if state != before[e]}
    # The lock's own state sensor follows it; nothing else of the device moves.
    assert moved - {SMART_LOCK_SENSOR} == {opens}
    assert len(scripted_llm.chat_requests) == 1


@pytest.mark.parametrize(
    "call",
    [
        ("HassTurnOff", {"name": "back door lock"}),
        ("HassTurnOff", {"name": "Back Door", "domain": ["smart_lock"]}),
    ],
    ids=["area-and-kind-as-name", "area-as-name-wrong-domain"],
)
@pytest.mark.usefixtures("house")
async def test_the_models_call_on_a_lock_named_by_its_area_runs_after_the_yes(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    call: tuple[str, dict[str, object]],
) -> None:
    """The model names the area and the kind ("back door lock") or the area
    with a kind that is no domain (1.5B). The request's verb says which kind
    it is for: the locks of the Back Door area, as HA's matcher reads
    "unlock the back door lock"."""
    agent = await _agent(hass, scripted_llm, fast=False)
    scripted_llm.script(Reply(tool_calls=[call]), Reply(content="Done."))
    before = _house_states(hass)

    first = await ask(hass, agent, "the back door lock needs to be unlocked")

    assert speech(first) == "Shall I unlock Deadbolt?"
    assert _house_states(hass) == before
    await ask(hass, agent, "yes", first["conversation_id"])
    moved = {e for e, state in _house_states(hass).items() if state != before[e]}
    assert moved == {DEADBOLT}


@pytest.mark.usefixtures("house")
async def test_the_request_s_verb_beats_the_model_s_domain_on_a_shared_name(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B sent "I want the garage door opener open" as HassTurnOn for the
    opener's light (domain "light"), and the light went on. The user's verb
    says which of the entities sharing the name is meant: the cover, held
    for the yes."""
    agent = await _agent(hass, scripted_llm, fast=False)
    call = ("HassTurnOn", {"name": "Garage Door Opener", "domain": ["light"]})
    scripted_llm.script(Reply(tool_calls=[call]), Reply(content="Done."))
    before = _house_states(hass)

    first = await ask(hass, agent, "I want the garage door opener open")

    assert speech(first) == "Shall I open Garage Door Opener?"
    assert _house_states(hass) == before
    await ask(hass, agent, "yes", first["conversation_id"])
    moved = {e for e, state in _house_states(hass).items() if state != before[e]}
    assert moved == {OPENER}


@pytest.mark.usefixtures("house")
async def test_locks_and_covers_go_the_way_the_request_says_not_the_models(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B locked the back door for "abre con llave la puerta trasera"
    (HassTurnOn): the unlock the words say waits for the yes; a lock the
    words say runs at once, whichever intent the model called. It opened the
    garage door for "baja la puerta del garaje del todo" (lower it)."""
    agent = await _agent(hass, scripted_llm, fast=False)
    scripted_llm.script(Reply(tool_calls=[("HassTurnOn", {"name": "Front Door"})]))
    before = _house_states(hass)

    first = await ask(hass, agent, "abre con llave Front Door", language="es")

    assert speech(first) == "¿Debo desbloquear Front Door?"
    assert _house_states(hass) == before
    await ask(hass, agent, "sí", first["conversation_id"], language="es")
    assert hass.states.get(FRONT_DOOR).state == "unlocked"

    scripted_llm.script(Reply(tool_calls=[("HassTurnOff", {"name": "Front Door"})]))
    await ask(hass, agent, "lock the front door")
    assert hass.states.get(FRONT_DOOR).state == "locked"

    await run_services(hass, ("cover.open_cover", OPENER))
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Garage Door Opener"})])
    )
    lowered = await ask(hass, agent, "baja Garage Door Opener del todo", language="es")
    assert hass.states.get(OPENER).state == "closed", speech(lowered)


@pytest.mark.usefixtures("house")
async def test_a_way_of_another_kind_turns_nothing(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B wrote "lock all the doors" (no lock exposed) as HassTurnOn for
    "door", and Jarvis asked "Shall I open Garage Door?". A lock's way said
    of a cover, or a door's of a lock, turns neither, and Jarvis says so."""
    agent = await _agent(hass, scripted_llm, fast=False)
    before = _house_states(hass)
    for request, target, said in (
        ("lock the garage door opener", "Garage Door Opener", "lock"),
        ("open the front door", "Front Door", "open"),
    ):
        scripted_llm.script(Reply(tool_calls=[("HassTurnOn", {"name": target})]))
        response = await ask(hass, agent, request)
        assert speech(response) == f"Sorry, I can't {said} {target}."
        assert _house_states(hass) == before
    # One command says only its own way; two may say each other's.
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Garage Door Opener"})]),
        Reply(content="Done."),
    )
    both = await ask(hass, agent, "lock the front door and open the garage door")
    assert speech(both) == "Shall I open Garage Door Opener?"


@pytest.mark.usefixtures("house")
async def test_all_of_a_name_said_in_plural_is_every_device_it_fits(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B sent "close all the windows" as the name "Window", and Jarvis
    asked which window. Said of all in plural, the name is every device it
    fits of the kinds the verb is said of: "lock all the doors" locks the
    door locks, not the opener's light; "open all the doors" opens the
    garage, after the yes, and no lock."""
    agent = await _agent(hass, scripted_llm, fast=False)
    await run_services(hass, ("lock.unlock", FRONT_DOOR))
    before = _house_states(hass)
    scripted_llm.script(Reply(tool_calls=[("HassTurnOn", {"name": "Door"})]))

    locked = await ask(hass, agent, "lock all the doors")

    moved = {e for e, state in _house_states(hass).items() if state != before[e]}
    assert moved == {FRONT_DOOR}, speech(locked)
    assert speech(locked) == "Done, I locked Front Door."

    scripted_llm.script(Reply(tool_calls=[("HassTurnOn", {"name": "door"})]))
    opened = await ask(hass, agent, "open all the doors")
    assert speech(opened) == "Shall I open Garage Door Opener?"
    await ask(hass, agent, "yes", opened["conversation_id"])
    assert hass.states.get(OPENER).state == "open"
    assert hass.states.get(FRONT_DOOR).state == "locked"


@pytest.mark.usefixtures("house")
async def test_a_kind_that_is_no_domain_does_not_hide_the_doors(
    hass: HomeAssistant, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B sent "open the door" as the name "Door" with the domain "door",
    which no entity has: HA matched nothing and the turn failed. Without the
    made-up domain the name fits several doors, and Jarvis asks which."""
    agent = await _agent(hass, scripted_llm, fast=False)
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOn", {"name": "Door", "domain": ["door"]})])
    )
    before = _house_states(hass)

    response = await ask(hass, agent, "open the door")

    assert speech(response) == (
        "Which one do you mean: Front Door or Garage Door Opener?"
    )
    assert _house_states(hass) == before
    assert len(scripted_llm.chat_requests) == 1


@pytest.mark.parametrize(
    ("language", "text", "reply"),
    [
        ("en", "close Garage Door Opener", "Done, I closed Garage Door Opener."),
        ("es", "cierra Garage Door Opener", "Hecho, he cerrado Garage Door Opener."),
    ],
)
@pytest.mark.usefixtures("house")
async def test_a_plain_command_on_a_shared_name_runs_without_the_model(
    hass: HomeAssistant,
    scripted_llm: ScriptedLLMServer,
    language: str,
    text: str,
    reply: str,
) -> None:
    """HA's matcher understands it but would refuse the name the opener's
    cover, light and sensors share; the sentence names the cover, so Jarvis
    closes it itself, with no question (closing is not sensitive) and no LLM."""
    agent = await _agent(hass, scripted_llm, fast=True)
    hass.config.language = language
    await hass.services.async_call(
        "cover", "open_cover", {"entity_id": OPENER}, blocking=True
    )
    before = _house_states(hass)

    response = await ask(hass, agent, text, language=language)

    assert speech(response) == reply
    moved = {e for e, state in _house_states(hass).items() if state != before[e]}
    assert moved == {OPENER}
    assert hass.states.get(OPENER).state == "closed"
    assert scripted_llm.chat_requests == []


@pytest.mark.parametrize(
    "command",
    [
        Command(
            "de",
            "Deaktiviere House Alarm",
            "Soll ich House Alarm unscharf schalten?",
            "ja",
            ALARM,
            "disarmed",
        ),
        Command(
            "es",
            "Desactiva House Alarm",
            "¿Debo desarmar House Alarm?",
            "sí",
            ALARM,
            "disarmed",
        ),
    ],
    ids=lambda c: c.language,
)
async def test_turning_off_an_alarm_panel_disarms_it_after_the_yes(
    hass: HomeAssistant,
    ha_core: None,
    scripted_llm: ScriptedLLMServer,
    command: Command,
) -> None:
    """HA's matcher understands "deactivate <panel>" as HassTurnOff, which
    HA's handler cannot run on an alarm panel (it has no turn_off). Jarvis
    holds what the user means, a disarm, asks, and disarms after the yes,
    with no LLM call."""
    house = await setup_house(hass, scripted_llm, prefer_local=True)
    hass.config.language = command.language
    before = guarded(hass)

    first = await ask(hass, house.agent, command.text, language=command.language)

    assert speech(first) == command.question
    assert changed(hass, before) == set()
    await ask(
        hass,
        house.agent,
        command.yes,
        first["conversation_id"],
        language=command.language,
    )
    assert changed(hass, before) == {command.opens}
    assert hass.states.get(command.opens).state == command.to
    assert scripted_llm.chat_requests == []


async def test_the_models_turn_off_on_an_alarm_panel_disarms_it_after_the_yes(
    hass: HomeAssistant, ha_core: None, scripted_llm: ScriptedLLMServer
) -> None:
    """HA's own prompt tells the model to use HassTurnOff to deactivate; on
    an alarm panel Jarvis holds a disarm and runs it after the yes."""
    house = await setup_house(hass, scripted_llm)
    scripted_llm.script(
        Reply(tool_calls=[("HassTurnOff", {"name": "House Alarm"})]),
        Reply(content="Done."),
    )
    before = guarded(hass)

    first = await ask(hass, house.agent, "disarm the house alarm")

    assert speech(first) == "Shall I disarm House Alarm?"
    assert changed(hass, before) == set()
    reply = await ask(hass, house.agent, "yes", first["conversation_id"])
    assert speech(reply) == "Done, I disarmed House Alarm."
    assert changed(hass, before) == {ALARM}
    assert hass.states.get(ALARM).state == "disarmed"
    assert len(scripted_llm.chat_requests) == 1


@pytest.mark.parametrize(
    "text",
    [
        "disarm the alarm",
        "Schalte die Alarmanlage unscharf",
        "Deaktiviere die Alarmanlage",
        "Desarma la alarma",
        "Desactiva la alarma",
        "Désarme l'alarme",
        "Disinserisci l'allarme",
        "Deactiveer het alarm",
        "Desarma o alarme",
    ],
)
def test_a_disarm_command_is_routed_to_the_tool_that_disarms(text: str) -> None:
    """Turning off an alarm panel disarms it (above), so the tool router
    offers HassTurnOff for the words that disarm, rather than falling open to
    the whole catalogue: a prompt too long for a small model on a CPU to read
    before the turn's time runs out (0.5B and 1.5B, scenario benchmark)."""
    route = ToolRouter(max_tools=4).route(text, CATALOGUE)

    assert not route.fell_open
    assert "HassTurnOff" in [tool.name for tool in route.tools]
