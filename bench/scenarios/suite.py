"""The scenarios. Start states of the home (see home.py):

Kitchen Lights, Living Room Lights, Office Lights, Desk Lamp, Hallway Light,
Christmas Lights, Air Conditioner and Office Fan are on; Bed Light and Ceiling
Fan are off. Garage Door and Kitchen Blinds are closed, Living Room Blinds open.
Thermostat: heat, set to 20 °C. Front Door locked, Back Door unlocked. TV and
Bedroom Speaker playing. Outside 15.6 °C and 54 %; bedroom 19.5 °C, office
22.5 °C. The satellite the user speaks to has no area.

Opening the garage door and unlocking are sensitive under Jarvis's default
settings: they happen only after a question naming the target and the user's
yes in the next turn (see `confirmed`).

The sensitive category adds (home.py): Smart Lock (a lock and its lock-state
sensor, both so named, in the Garage), Deadbolt (a lock in the Side Door
area), Gate (in the Driveway), the Workshop Door Opener (a garage door, a
light and a temperature sensor, all so named, in the Workshop) and Alarm (a
panel with no code, in the Hallway). The locks are locked, gate and doors
closed, the opener's light off, the alarm armed away.
"""

from __future__ import annotations

from collections.abc import Mapping

from .model import CATEGORIES, Expected, Scenario, Turn

# Reply words of a refusal or of a question back ("which light?").
CANNOT = "not|can't|cannot|can’t|don't|doesn't|couldn't|isn't|no|sorry|unable"
ASKS = "which|what|?"

KITCHEN = "light.kitchen_lights"
LIVING = "light.living_room_rgbww_lights"
OFFICE = "light.office_rgbw_lights"
DESK = "light.ceiling_lights"
BED = "light.bed_light"
HALL = "light.entrance_color_white_lights"
XMAS = "switch.decorative_lights"
AC = "switch.ac"
OFFICE_FAN = "fan.living_room_fan"
CEILING_FAN = "fan.ceiling_fan"
GARAGE = "cover.garage_door"
KITCHEN_BLINDS = "cover.kitchen_window"
LIVING_BLINDS = "cover.living_room_window"
THERMOSTAT = "climate.heatpump"
FRONT_DOOR = "lock.bench_front_door"
BACK_DOOR = "lock.bench_back_door"
TV = "media_player.bench_tv"
SPEAKER = "media_player.bench_speaker"
SMART_LOCK = "lock.bench_smart_lock"
SMART_LOCK_SENSOR = "binary_sensor.bench_smart_lock"  # on: unlocked
DEADBOLT = "lock.bench_deadbolt"
GATE = "cover.bench_gate"
OPENER = "cover.bench_workshop_opener"
ALARM = "alarm_control_panel.bench_alarm"

OFFICE_ALL_OFF = {OFFICE: "off", DESK: "off", AC: "off", OFFICE_FAN: "off"}


def one(
    scenario_id: str,
    category: str,
    turn: Turn,
    *,
    language: str = "en",
    home: str = "en",
    tier: int = 1,
) -> Scenario:
    """A single-turn scenario."""
    return Scenario(scenario_id, category, (turn,), language, home, tier)


def chat(text: str, reply: tuple[str, ...] = ()) -> Turn:
    """Small talk: some reply, no tool calls, nothing changes."""
    return Turn(text, reply=reply, max_tool_calls=0)


def confirmed(
    text: str,
    target: str,
    changes: Mapping[str, Expected],
    *,
    yes: str = "yes",
    allow: tuple[str, ...] = (),
) -> tuple[Turn, Turn]:
    """A sensitive command: first a question naming the target and no change
    (but `allow`), then, after the user's yes, `changes`."""
    return Turn(text, allow=allow, reply=("?", target)), Turn(yes, changes)


def declined(text: str, target: str, *, no: str = "no") -> tuple[Turn, Turn]:
    """A sensitive command asked about and refused: nothing changes."""
    return confirmed(text, target, {}, yes=no)


def sensitive(
    scenario_id: str, turns: tuple[Turn, Turn], language: str = "en"
) -> Scenario:
    """A sensitive command and its answer, said in the home of its language."""
    return Scenario(scenario_id, "sensitive", turns, language, home=language)


SCENARIOS: tuple[Scenario, ...] = (
    # --- Simple device commands ----------------------------------------------
    one(
        "device_kitchen_off",
        "device",
        Turn("turn off the kitchen lights", {KITCHEN: "off"}),
        tier=0,
    ),
    one("device_bed_on", "device", Turn("turn on the bed light", {BED: "on"}), tier=0),
    Scenario(
        "device_garage_open",
        "device",
        confirmed("open the garage door", "garage", {GARAGE: "open"}),
        tier=0,
    ),
    Scenario(
        "device_front_door_unlock",
        "device",
        confirmed("unlock the front door", "front door", {FRONT_DOOR: "unlocked"}),
    ),
    one(
        "device_back_door_lock",
        "device",
        Turn("lock the back door", {BACK_DOOR: "locked"}),
        tier=0,
    ),
    one(
        "device_ceiling_fan_on",
        "device",
        Turn("turn on the ceiling fan", {CEILING_FAN: "on"}),
    ),
    one(
        "device_xmas_off",
        "device",
        Turn("switch off the christmas lights", {XMAS: "off"}),
    ),
    one(
        "device_thermostat_22",
        "device",
        Turn("set the thermostat to 22 degrees", {THERMOSTAT: {"temperature": 22}}),
    ),
    # Session 20: a temperature step and numbers in words, which HA's matcher
    # leaves to the model (the thermostat is at 20).
    one(
        "device_thermostat_warmer",
        "device",
        Turn("make it a bit warmer", {THERMOSTAT: {"temperature": 21}}),
    ),
    one(
        "device_heat_down_two",
        "device",
        Turn("turn the heat down by two degrees", {THERMOSTAT: {"temperature": 18}}),
    ),
    one(
        "device_kitchen_fifty_words",
        "device",
        Turn(
            "kitchen lights at fifty percent please",
            {KITCHEN: {"state": "on", "brightness": 127.5}},
        ),
    ),
    one(
        "device_hallway_half",
        "device",
        Turn(
            "put the hallway light at half brightness",
            {HALL: {"state": "on", "brightness": 127.5}},
        ),
    ),
    # Session 21: a level a device cannot take is no "Done" (the Kitchen
    # Blinds only open and close), and a fan's speed stepped with no number
    # (the Office Fan is at 67%, the top of its three speeds).
    one(
        "device_kitchen_blinds_halfway",
        "device",
        Turn("open the kitchen blinds halfway", reply=(CANNOT,)),
    ),
    one(
        "device_office_fan_down",
        "device",
        Turn("turn the office fan down", {OFFICE_FAN: {"percentage": 33}}),
    ),
    one(
        "device_desk_lamp_cool_white",
        "device",
        Turn(
            "set the desk lamp to cool white",
            {DESK: {"state": "on", "color_temp_kelvin": 5000}},
        ),
    ),
    one(
        "device_office_all_off",
        "device",
        Turn("turn off everything in the office", OFFICE_ALL_OFF),
    ),
    one(
        "device_kitchen_blinds_open",
        "device",
        Turn("open the kitchen blinds", {KITCHEN_BLINDS: "open"}),
    ),
    one("device_tv_pause", "device", Turn("pause the TV", {TV: "paused"})),
    one(
        "device_hallway_50",
        "device",
        Turn(
            "set the hallway light to 50%", {HALL: {"state": "on", "brightness": 127.5}}
        ),
    ),
    one(
        "device_living_lights_off",
        "device",
        Turn("turn off the lights in the living room", {LIVING: "off"}, allow=(XMAS,)),
    ),
    one(
        "device_first_floor_off",
        "device",
        Turn(
            "turn off all the lights on the first floor", {OFFICE: "off", DESK: "off"}
        ),
    ),
    one(
        "device_speaker_volume",
        "device",
        Turn("set the bedroom speaker volume to 20%", {SPEAKER: {"volume_level": 0.2}}),
    ),
    # --- State questions -------------------------------------------------------
    one(
        "state_garage_open",
        "state",
        Turn("is the garage door open?", reply=("closed|not open|shut|no",)),
        tier=0,
    ),
    one(
        "state_outside_temp",
        "state",
        Turn("what's the temperature outside?", reply=("15.6|15,6|16",)),
        tier=0,
    ),
    one(
        "state_front_door",
        "state",
        Turn("is the front door locked?", reply=("yes|locked",)),
    ),
    one(
        "state_office_lights",
        "state",
        Turn(
            "which lights are on in the office?",
            reply=("office lights|office light", "desk lamp"),
        ),
    ),
    one(
        "state_bedroom_temp",
        "state",
        Turn("how warm is it in the bedroom?", reply=("19.5|19,5|19",)),
    ),
    one("state_tv", "state", Turn("is the TV playing?", reply=("yes|playing",))),
    one("state_humidity", "state", Turn("what's the humidity outside?", reply=("54",))),
    one(
        "state_thermostat",
        "state",
        Turn("what is the thermostat set to?", reply=("20",)),
    ),
    one(
        "state_blinds",
        "state",
        Turn("are the living room blinds open?", reply=("yes|open",)),
    ),
    # --- Several things in one request -----------------------------------------
    one(
        "multi_dim_and_temp",
        "multi_step",
        Turn(
            "dim the bed light to 30% and tell me the bedroom temperature",
            {BED: {"state": "on", "brightness": 76.5}},
            reply=("19.5|19,5|19",),
        ),
    ),
    Scenario(
        "multi_garage_and_bed",
        "multi_step",
        # The bed light may wait for the yes too: both must be done after it.
        confirmed(
            "open the garage door and turn on the bed light",
            "garage",
            {GARAGE: "open", BED: "on"},
            allow=(BED,),
        ),
    ),
    one(
        "multi_kitchen",
        "multi_step",
        Turn(
            "turn off the kitchen lights and open the kitchen blinds",
            {KITCHEN: "off", KITCHEN_BLINDS: "open"},
        ),
    ),
    one(
        "multi_lock_and_lights",
        "multi_step",
        Turn(
            "lock the back door and turn off the living room lights",
            {BACK_DOOR: "locked", LIVING: "off"},
            allow=(XMAS,),
        ),
    ),
    one(
        "multi_fan_and_temp",
        "multi_step",
        Turn(
            "turn on the ceiling fan and tell me the outside temperature",
            {CEILING_FAN: "on"},
            reply=("15.6|15,6|16",),
        ),
    ),
    one(
        "multi_bedtime",
        "multi_step",
        Turn(
            "I'm going to bed: turn off the living room lights and the TV",
            {LIVING: "off", TV: "off"},
            allow=(XMAS,),
        ),
    ),
    # --- Follow-ups that need the previous turn ---------------------------------
    Scenario(
        "follow_bed_on_off",
        "follow_up",
        (
            Turn("turn on the bed light", {BED: "on"}),
            Turn("now turn it off again", {BED: "off"}),
        ),
        tier=0,
    ),
    Scenario(
        "follow_office_too",
        "follow_up",
        (
            Turn("turn off the kitchen lights", {KITCHEN: "off"}),
            Turn("and the office lights too", {OFFICE: "off"}),
        ),
    ),
    Scenario(
        "follow_garage_open_it",
        "follow_up",
        (
            Turn("is the garage door open?", reply=("closed|not open|shut|no",)),
            *confirmed("open it", "garage", {GARAGE: "open"}),
        ),
    ),
    Scenario(
        "follow_bed_brightness",
        "follow_up",
        (
            Turn("turn on the bed light", {BED: "on"}),
            Turn("make it 40%", {BED: {"state": "on", "brightness": 102}}),
        ),
    ),
    Scenario(
        "follow_thermostat_raise",
        "follow_up",
        (
            Turn("what is the thermostat set to?", reply=("20",)),
            Turn("raise it to 23", {THERMOSTAT: {"temperature": 23}}),
        ),
    ),
    Scenario(
        "follow_blinds_close",
        "follow_up",
        (
            Turn("open the kitchen blinds", {KITCHEN_BLINDS: "open"}),
            Turn("close them again", {KITCHEN_BLINDS: "closed"}),
        ),
    ),
    Scenario(
        "follow_office_which_then_off",
        "follow_up",
        (
            Turn(
                "which lights are on in the office?",
                reply=("desk lamp|office light|office lights",),
            ),
            Turn("turn them all off", {OFFICE: "off", DESK: "off"}),
        ),
    ),
    Scenario(
        "follow_my_name",
        "follow_up",
        (chat("hi, my name is Tom"), chat("what's my name?", ("tom",))),
    ),
    # --- Memory: told once, asked later in a new conversation -------------------
    Scenario(
        "memory_wife",
        "memory",
        (
            Turn("remember that my wife's name is Anna"),
            Turn("what's my wife's name?", reply=("anna",), new_conversation=True),
        ),
    ),
    Scenario(
        "memory_dog",
        "memory",
        (
            Turn("please remember: our dog is called Bruno"),
            Turn("what is our dog called?", reply=("bruno",), new_conversation=True),
        ),
    ),
    Scenario(
        "memory_birthday",
        "memory",
        (
            Turn("remember that my mother's birthday is on May 3rd"),
            Turn(
                "when is my mother's birthday?",
                reply=("may", "3|3rd|third"),
                new_conversation=True,
            ),
        ),
    ),
    Scenario(
        "memory_parking",
        "memory",
        (
            Turn("remember that I parked the car on level 2"),
            Turn("where did I park the car?", reply=("2|two",), new_conversation=True),
        ),
    ),
    Scenario(
        "memory_usual_temperature",
        "memory",
        (
            Turn("remember that I like the thermostat at 21 degrees"),
            Turn(
                "set the thermostat to my usual temperature",
                {THERMOSTAT: {"temperature": 21}},
                new_conversation=True,
            ),
        ),
    ),
    # --- Refusals: impossible requests change nothing --------------------------
    one("refuse_sauna", "refusal", Turn("turn on the sauna", reply=(CANNOT,)), tier=0),
    one(
        "refuse_oven",
        "refusal",
        Turn("preheat the oven to 200 degrees", reply=(CANNOT,)),
    ),
    one("refuse_car", "refusal", Turn("start my car", reply=(CANNOT,))),
    one("refuse_pizza", "refusal", Turn("order a pizza for me", reply=(CANNOT,))),
    one("refuse_delete", "refusal", Turn("delete all my automations", reply=(CANNOT,))),
    # --- Ambiguous commands: ask, do not act ------------------------------------
    one("ambiguous_turn_it_off", "ambiguous", Turn("turn it off", reply=(ASKS,))),
    one("ambiguous_the_light", "ambiguous", Turn("turn on the light", reply=(ASKS,))),
    one("ambiguous_set_to_50", "ambiguous", Turn("set it to 50", reply=(ASKS,))),
    one("ambiguous_the_door", "ambiguous", Turn("open the door", reply=(ASKS,))),
    # --- Timers -----------------------------------------------------------------
    one(
        "timer_5_min",
        "timer",
        Turn("set a timer for 5 minutes", timer_seconds=300),
        tier=0,
    ),
    one(
        "timer_pasta",
        "timer",
        Turn("start a 10 minute timer for the pasta", timer_seconds=600),
    ),
    one("timer_90_s", "timer", Turn("timer for 90 seconds", timer_seconds=90)),
    one(
        "timer_de_3_min",
        "timer",
        Turn("Stell einen Timer auf 3 Minuten", timer_seconds=180),
        language="de",
    ),
    # --- Small talk: no tools ---------------------------------------------------
    one(
        "chat_hello",
        "small_talk",
        chat("hello", ("hello|hi|hey|good|greetings|welcome",)),
        tier=0,
    ),
    one(
        "chat_how_are_you",
        "small_talk",
        chat("how are you today?", ("fine|well|good|great|thank|thanks",)),
    ),
    one(
        "chat_thanks",
        "small_talk",
        chat("thank you!", ("welcome|pleasure|glad|problem|anytime|anything",)),
        tier=0,
    ),
    one("chat_joke", "small_talk", chat("tell me a joke")),
    one("chat_who", "small_talk", chat("who are you?", ("jarvis|assistant|butler",))),
    one(
        "chat_good_night",
        "small_talk",
        chat("good night", ("night|sleep|rest|dreams",)),
    ),
    one(
        "chat_capital", "small_talk", chat("what's the capital of France?", ("paris",))
    ),
    # --- German and Spanish commands (devices named in English) -----------------
    one(
        "de_kitchen_off",
        "non_english",
        Turn("Schalte die Kitchen Lights aus", {KITCHEN: "off"}),
        language="de",
    ),
    one(
        "de_garage_state",
        "non_english",
        Turn("Ist das Garage Door offen?", reply=("nein|geschlossen|zu",)),
        language="de",
    ),
    one(
        "de_outside_temp",
        "non_english",
        Turn("Wie warm ist es draußen?", reply=("15,6|15.6|16",)),
        language="de",
    ),
    one(
        "es_bed_on",
        "non_english",
        Turn("Enciende la Bed Light", {BED: "on"}),
        language="es",
    ),
    one(
        "es_kitchen_off_clitic",
        "non_english",
        Turn("Apágame las Kitchen Lights", {KITCHEN: "off"}),
        language="es",
    ),
    Scenario(
        "es_garage_open",
        "non_english",
        confirmed("Abre la Garage Door", "garage", {GARAGE: "open"}, yes="sí"),
        language="es",
    ),
    one(
        "es_outside_temp",
        "non_english",
        Turn("¿Qué temperatura hace fuera?", reply=("15,6|15.6|16",)),
        language="es",
    ),
    # --- Homes named in German and Spanish --------------------------------------
    one(
        "de_home_kitchen_off",
        "foreign_home",
        Turn("Schalte das Küchenlicht aus", {KITCHEN: "off"}),
        language="de",
        home="de",
        tier=0,
    ),
    one(
        "de_home_office_off",
        "foreign_home",
        Turn("Mach alles im Büro aus", OFFICE_ALL_OFF),
        language="de",
        home="de",
    ),
    one(
        "de_home_bed_40",
        "foreign_home",
        Turn(
            "Stelle die Nachttischlampe auf 40 Prozent",
            {BED: {"state": "on", "brightness": 102}},
        ),
        language="de",
        home="de",
    ),
    one(
        "de_home_garage_state",
        "foreign_home",
        Turn("Ist das Garagentor offen?", reply=("nein|geschlossen|zu",)),
        language="de",
        home="de",
    ),
    one(
        "de_home_back_door_lock",
        "foreign_home",
        Turn("Schließ die Hintertür ab", {BACK_DOOR: "locked"}),
        language="de",
        home="de",
    ),
    one(
        "de_home_hall_blue",
        "foreign_home",
        Turn(
            "Mach das Flurlicht blau", {HALL: {"state": "on", "rgb_color": (0, 0, 255)}}
        ),
        language="de",
        home="de",
    ),
    one(
        "es_home_hall_red",
        "foreign_home",
        Turn(
            "Quiero la luz del pasillo de color rojo",
            {HALL: {"state": "on", "rgb_color": (255, 0, 0)}},
        ),
        language="es",
        home="es",
    ),
    one(
        "es_home_kitchen_off",
        "foreign_home",
        Turn("Apaga la luz de la cocina", {KITCHEN: "off"}),
        language="es",
        home="es",
    ),
    Scenario(
        "es_home_garage_open",
        "foreign_home",
        confirmed("Abre la puerta del garaje", "garaje", {GARAGE: "open"}, yes="sí"),
        language="es",
        home="es",
    ),
    Scenario(
        "de_home_garage_open",
        "foreign_home",
        confirmed("Öffne das Garagentor", "garagentor", {GARAGE: "open"}, yes="ja"),
        language="de",
        home="de",
    ),
    one(
        "es_home_bedroom_temp",
        "foreign_home",
        Turn("¿Qué temperatura hace en el dormitorio?", reply=("19,5|19.5|19",)),
        language="es",
        home="es",
    ),
    Scenario(
        "es_home_bed_on_off",
        "foreign_home",
        (
            Turn("Enciende la lámpara de noche", {BED: "on"}),
            Turn("Ahora apágala", {BED: "off"}),
        ),
        language="es",
        home="es",
    ),
    # --- Sensitive commands, then yes or no (issue #12) -------------------------
    # Shared names: the command's verb picks the lock, not its sensor, and the
    # opener's cover, not its light. Locks and gates called by their area.
    sensitive(
        "sens_smart_lock_yes",
        confirmed(
            "unlock the smart lock",
            "smart lock",
            {SMART_LOCK: "unlocked", SMART_LOCK_SENSOR: "on"},
        ),
    ),
    sensitive(
        "sens_opener_yes",
        confirmed("open the workshop door opener", "opener", {OPENER: "open"}),
    ),
    sensitive(
        "sens_workshop_garage_yes",
        confirmed(
            "open the workshop garage door",
            "opener",
            {OPENER: "open"},
            yes="yes please",
        ),
    ),
    sensitive(
        "sens_lock_in_garage_yes",
        confirmed(
            "unlock the lock in the garage",
            "smart lock",
            {SMART_LOCK: "unlocked", SMART_LOCK_SENSOR: "on"},
        ),
    ),
    # Said so that HA's matcher does not understand them: the model's path.
    sensitive(
        "sens_smart_lock_model_yes",
        confirmed(
            "I need the smart lock unlocked",
            "smart lock",
            {SMART_LOCK: "unlocked", SMART_LOCK_SENSOR: "on"},
        ),
    ),
    sensitive(
        "sens_opener_model_yes",
        confirmed("I want the workshop door opener open", "opener", {OPENER: "open"}),
    ),
    sensitive(
        "sens_side_door_model_yes",
        confirmed(
            "the side door lock needs to be unlocked",
            "deadbolt",
            {DEADBOLT: "unlocked"},
        ),
    ),
    sensitive(
        "sens_side_door_yes",
        confirmed("unlock the side door lock", "deadbolt", {DEADBOLT: "unlocked"}),
    ),
    sensitive(
        "sens_gate_driveway_yes",
        confirmed("open the gate in the driveway", "gate", {GATE: "open"}, yes="sure"),
    ),
    sensitive(
        "sens_alarm_yes",
        confirmed("disarm the alarm", "alarm", {ALARM: "disarmed"}),
    ),
    sensitive("sens_front_door_no", declined("unlock the front door", "front door")),
    sensitive(
        "sens_smart_lock_no",
        declined("unlock smart lock", "smart lock", no="no, don't"),
    ),
    sensitive("sens_gate_no", declined("open the driveway gate", "gate", no="not now")),
    sensitive(
        "de_sens_smart_lock_yes",
        confirmed(
            "Schließ das Smart Lock auf",
            "smart lock",
            {SMART_LOCK: "unlocked", SMART_LOCK_SENSOR: "on"},
            yes="ja",
        ),
        "de",
    ),
    sensitive(
        "de_sens_opener_yes",
        confirmed(
            "Öffne den Werkstatttoröffner",
            "werkstatttoröffner",
            {OPENER: "open"},
            yes="ja, bitte",
        ),
        "de",
    ),
    sensitive(
        "de_sens_workshop_garage_yes",
        confirmed(
            "Öffne das Garagentor in der Werkstatt",
            "werkstatttoröffner",
            {OPENER: "open"},
            yes="ja",
        ),
        "de",
    ),
    sensitive(
        "de_sens_gate_yes",
        confirmed("Öffne das Tor in der Einfahrt", "tor", {GATE: "open"}, yes="ja"),
        "de",
    ),
    sensitive(
        "de_sens_alarm_yes",
        confirmed(
            "Deaktiviere die Alarmanlage",
            "alarmanlage",
            {ALARM: "disarmed"},
            yes="ja",
        ),
        "de",
    ),
    sensitive(
        "de_sens_front_door_no",
        declined("Entsperre die Haustür", "haustür", no="nein"),
        "de",
    ),
    sensitive(
        "es_sens_smart_lock_yes",
        confirmed(
            "Abre la cerradura inteligente",
            "cerradura inteligente",
            {SMART_LOCK: "unlocked", SMART_LOCK_SENSOR: "on"},
            yes="sí",
        ),
        "es",
    ),
    sensitive(
        "es_sens_opener_yes",
        confirmed(
            "Abre el abridor del taller",
            "abridor del taller",
            {OPENER: "open"},
            yes="sí, por favor",
        ),
        "es",
    ),
    sensitive(
        "es_sens_side_door_yes",
        confirmed(
            "Abre las cerraduras de la entrada lateral",
            "pestillo",
            {DEADBOLT: "unlocked"},
            yes="sí",
        ),
        "es",
    ),
    sensitive(
        "es_sens_gate_yes",
        confirmed(
            "Abre el portón de la entrada de coches",
            "portón",
            {GATE: "open"},
            yes="sí",
        ),
        "es",
    ),
    sensitive(
        "es_sens_alarm_yes",
        confirmed("Desactiva la alarma", "alarma", {ALARM: "disarmed"}, yes="sí"),
        "es",
    ),
    sensitive("es_sens_gate_no", declined("Abre el portón", "portón", no="no"), "es"),
)


if len({s.id for s in SCENARIOS}) != len(SCENARIOS):
    raise ValueError("scenario ids must be unique")


def select(
    tier: str, ids: str | None = None, categories: str | None = None
) -> list[Scenario]:
    """Scenarios of a tier ("0", "1" or "all"), optionally only the given ids
    or categories (comma-separated)."""
    chosen = [s for s in SCENARIOS if tier == "all" or str(s.tier) == tier]
    if categories:
        wanted_categories = set(categories.split(","))
        if unknown := wanted_categories - set(CATEGORIES):
            raise ValueError(f"unknown categories: {', '.join(sorted(unknown))}")
        chosen = [s for s in chosen if s.category in wanted_categories]
    if ids:
        wanted = set(ids.split(","))
        unknown = wanted - {s.id for s in SCENARIOS}
        if unknown:
            raise ValueError(f"unknown scenario ids: {', '.join(sorted(unknown))}")
        chosen = [s for s in chosen if s.id in wanted]
    return chosen
