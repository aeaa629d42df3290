"""A seeded generator of messy homes: floors, areas, devices and their entities.

A home is pure data (`Home`), the same for the same (seed, size, language);
`entities.async_build` makes it real in a Home Assistant instance. Messy as
real homes are: a device's entities share its name (a lock and its lock-state
sensor, a garage opener's cover and light, battery and signal sensors), the
same device names recur in several areas, speaker groups sit beside their
speakers, several to-do lists, vacuums and valves placed by area.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
import random
from typing import Any

LANGUAGES = ("en", "de", "es")
SIZES = (20, 60, 200)


@dataclass(frozen=True, slots=True)
class Name:
    """A name and how commands say it: with its article ("the Kitchen") and
    as a place ("in the Kitchen"); German articles are accusative."""

    name: str
    the: str
    in_: str = ""


def _n(name: str, the: str, in_: str = "") -> Name:
    return Name(name, the, in_)


# Floors by level, areas by floor level (-1 none: outdoors).
FLOORS: Mapping[str, tuple[Name, ...]] = {
    "en": (
        _n("Basement", "the basement", "in the basement"),
        _n("Ground Floor", "the ground floor", "on the ground floor"),
        _n("First Floor", "the first floor", "on the first floor"),
    ),
    "de": (
        _n("Keller", "den Keller", "im Keller"),
        _n("Erdgeschoss", "das Erdgeschoss", "im Erdgeschoss"),
        _n("Obergeschoss", "das Obergeschoss", "im Obergeschoss"),
    ),
    "es": (
        _n("Sótano", "el sótano", "en el sótano"),
        _n("Planta baja", "la planta baja", "en la planta baja"),
        _n("Primera planta", "la primera planta", "en la primera planta"),
    ),
}

AREAS: Mapping[str, tuple[tuple[int, Name], ...]] = {
    "en": (
        (1, _n("Kitchen", "the kitchen", "in the kitchen")),
        (1, _n("Living Room", "the living room", "in the living room")),
        (2, _n("Bedroom", "the bedroom", "in the bedroom")),
        (1, _n("Garage", "the garage", "in the garage")),
        (-1, _n("Garden", "the garden", "in the garden")),
        (2, _n("Office", "the office", "in the office")),
        (1, _n("Hallway", "the hallway", "in the hallway")),
        (2, _n("Kids Room", "the kids room", "in the kids room")),
        (2, _n("Bathroom", "the bathroom", "in the bathroom")),
        (1, _n("Dining Room", "the dining room", "in the dining room")),
        (0, _n("Laundry Room", "the laundry room", "in the laundry room")),
        (0, _n("Workshop", "the workshop", "in the workshop")),
        (2, _n("Guest Room", "the guest room", "in the guest room")),
        (1, _n("Guest Bathroom", "the guest bathroom", "in the guest bathroom")),
    ),
    "de": (
        (1, _n("Küche", "die Küche", "in der Küche")),
        (1, _n("Wohnzimmer", "das Wohnzimmer", "im Wohnzimmer")),
        (2, _n("Schlafzimmer", "das Schlafzimmer", "im Schlafzimmer")),
        (1, _n("Garage", "die Garage", "in der Garage")),
        (-1, _n("Garten", "den Garten", "im Garten")),
        (2, _n("Büro", "das Büro", "im Büro")),
        (1, _n("Flur", "den Flur", "im Flur")),
        (2, _n("Kinderzimmer", "das Kinderzimmer", "im Kinderzimmer")),
        (2, _n("Badezimmer", "das Badezimmer", "im Badezimmer")),
        (1, _n("Esszimmer", "das Esszimmer", "im Esszimmer")),
        (0, _n("Waschküche", "die Waschküche", "in der Waschküche")),
        (0, _n("Werkstatt", "die Werkstatt", "in der Werkstatt")),
        (2, _n("Gästezimmer", "das Gästezimmer", "im Gästezimmer")),
        (1, _n("Gäste-WC", "das Gäste-WC", "im Gäste-WC")),
    ),
    "es": (
        (1, _n("Cocina", "la cocina", "en la cocina")),
        (1, _n("Salón", "el salón", "en el salón")),
        (2, _n("Dormitorio", "el dormitorio", "en el dormitorio")),
        (1, _n("Garaje", "el garaje", "en el garaje")),
        (-1, _n("Jardín", "el jardín", "en el jardín")),
        (2, _n("Despacho", "el despacho", "en el despacho")),
        (1, _n("Pasillo", "el pasillo", "en el pasillo")),
        (
            2,
            _n(
                "Cuarto de los niños",
                "el cuarto de los niños",
                "en el cuarto de los niños",
            ),
        ),
        (2, _n("Baño", "el baño", "en el baño")),
        (1, _n("Comedor", "el comedor", "en el comedor")),
        (0, _n("Lavadero", "el lavadero", "en el lavadero")),
        (0, _n("Taller", "el taller", "en el taller")),
        (
            2,
            _n(
                "Cuarto de invitados",
                "el cuarto de invitados",
                "en el cuarto de invitados",
            ),
        ),
        (1, _n("Baño de invitados", "el baño de invitados", "en el baño de invitados")),
    ),
}

# The names of the entities a device's secondary entities add to its name.
SUFFIXES: Mapping[str, Mapping[str, str]] = {
    "battery": {"en": "Battery", "de": "Batterie", "es": "Batería"},
    "signal": {
        "en": "Signal strength",
        "de": "Signalstärke",
        "es": "Intensidad de señal",
    },
    "tamper": {"en": "Tamper", "de": "Manipulation", "es": "Manipulación"},
    "temperature": {"en": "Temperature", "de": "Temperatur", "es": "Temperatura"},
    "humidity": {"en": "Humidity", "de": "Luftfeuchtigkeit", "es": "Humedad"},
    "power": {"en": "Power", "de": "Leistung", "es": "Potencia"},
    "obstruction": {"en": "Obstruction", "de": "Hindernis", "es": "Obstrucción"},
}


@dataclass(frozen=True, slots=True)
class Kind:
    """A kind of device: its names per language and the entities it brings.

    Each entity is (domain, role, suffix key or None for the device's own name).
    """

    key: str
    names: Mapping[str, tuple[Name, ...]]
    entities: tuple[tuple[str, str, str | None], ...]
    per_area: bool = True  # placed in an area (else the home's, e.g. to-do lists)


def _names(*rows: tuple[str, str, str, str, str, str]) -> dict[str, tuple[Name, ...]]:
    """(en name, en "the", de name, de "den/die/das", es name, es "el/la")."""
    return {
        "en": tuple(_n(r[0], r[1]) for r in rows),
        "de": tuple(_n(r[2], r[3]) for r in rows),
        "es": tuple(_n(r[4], r[5]) for r in rows),
    }


KINDS: Mapping[str, Kind] = {
    kind.key: kind
    for kind in (
        Kind(
            "light",
            _names(
                (
                    "Ceiling Light",
                    "the ceiling light",
                    "Deckenlampe",
                    "die Deckenlampe",
                    "Luz del techo",
                    "la luz del techo",
                ),
                ("Lamp", "the lamp", "Lampe", "die Lampe", "Lámpara", "la lámpara"),
                (
                    "Floor Lamp",
                    "the floor lamp",
                    "Stehlampe",
                    "die Stehlampe",
                    "Lámpara de pie",
                    "la lámpara de pie",
                ),
                (
                    "Spotlights",
                    "the spotlights",
                    "Strahler",
                    "die Strahler",
                    "Focos",
                    "los focos",
                ),
                (
                    "LED Strip",
                    "the LED strip",
                    "LED-Streifen",
                    "den LED-Streifen",
                    "Tira LED",
                    "la tira LED",
                ),
            ),
            (("light", "main", None),),
        ),
        Kind(
            "plug",
            _names(
                (
                    "Coffee Maker",
                    "the coffee maker",
                    "Kaffeemaschine",
                    "die Kaffeemaschine",
                    "Cafetera",
                    "la cafetera",
                ),
                (
                    "Heater",
                    "the heater",
                    "Heizlüfter",
                    "den Heizlüfter",
                    "Calefactor",
                    "el calefactor",
                ),
                (
                    "Christmas Tree",
                    "the christmas tree",
                    "Weihnachtsbaum",
                    "den Weihnachtsbaum",
                    "Árbol de Navidad",
                    "el árbol de Navidad",
                ),
                (
                    "Kettle",
                    "the kettle",
                    "Wasserkocher",
                    "den Wasserkocher",
                    "Hervidor",
                    "el hervidor",
                ),
            ),
            (("switch", "main", None), ("sensor", "power", "power")),
        ),
        Kind(
            "fan",
            _names(
                (
                    "Fan",
                    "the fan",
                    "Ventilator",
                    "den Ventilator",
                    "Ventilador",
                    "el ventilador",
                )
            ),
            (("fan", "main", None),),
        ),
        Kind(
            "blind",
            _names(
                (
                    "Blinds",
                    "the blinds",
                    "Rollladen",
                    "den Rollladen",
                    "Persiana",
                    "la persiana",
                ),
                (
                    "Curtain",
                    "the curtain",
                    "Vorhang",
                    "den Vorhang",
                    "Cortina",
                    "la cortina",
                ),
            ),
            (("cover", "main", None), ("sensor", "battery", "battery")),
        ),
        Kind(
            "garage",
            _names(
                (
                    "Garage Door",
                    "the garage door",
                    "Garagentor",
                    "das Garagentor",
                    "Puerta del garaje",
                    "la puerta del garaje",
                )
            ),
            (
                ("cover", "door", None),
                ("light", "opener_light", None),
                ("binary_sensor", "obstruction", "obstruction"),
                ("sensor", "signal", "signal"),
            ),
        ),
        Kind(
            "lock",
            _names(
                (
                    "Front Door",
                    "the front door",
                    "Haustür",
                    "die Haustür",
                    "Puerta principal",
                    "la puerta principal",
                ),
                (
                    "Back Door",
                    "the back door",
                    "Hintertür",
                    "die Hintertür",
                    "Puerta trasera",
                    "la puerta trasera",
                ),
            ),
            (
                ("lock", "main", None),
                ("binary_sensor", "lock_state", None),
                ("sensor", "battery", "battery"),
                ("binary_sensor", "tamper", "tamper"),
            ),
        ),
        Kind(
            "climate",
            _names(
                (
                    "Thermometer",
                    "the thermometer",
                    "Thermometer",
                    "das Thermometer",
                    "Termómetro",
                    "el termómetro",
                )
            ),
            (
                ("sensor", "temperature", "temperature"),
                ("sensor", "humidity", "humidity"),
                ("sensor", "battery", "battery"),
            ),
        ),
        Kind(
            "motion",
            _names(
                (
                    "Motion Sensor",
                    "the motion sensor",
                    "Bewegungsmelder",
                    "den Bewegungsmelder",
                    "Sensor de movimiento",
                    "el sensor de movimiento",
                )
            ),
            (("binary_sensor", "motion", None), ("sensor", "battery", "battery")),
        ),
        Kind(
            "speaker",
            _names(
                (
                    "Speaker",
                    "the speaker",
                    "Lautsprecher",
                    "den Lautsprecher",
                    "Altavoz",
                    "el altavoz",
                ),
                (
                    "TV",
                    "the TV",
                    "Fernseher",
                    "den Fernseher",
                    "Televisión",
                    "la televisión",
                ),
            ),
            (("media_player", "main", None),),
        ),
        Kind(
            "vacuum",
            _names(
                (
                    "Robot Vacuum",
                    "the robot vacuum",
                    "Saugroboter",
                    "den Saugroboter",
                    "Robot aspirador",
                    "el robot aspirador",
                )
            ),
            (("vacuum", "main", None), ("sensor", "battery", "battery")),
        ),
        Kind(
            "valve",
            _names(
                (
                    "Water Valve",
                    "the water valve",
                    "Wasserventil",
                    "das Wasserventil",
                    "Válvula de agua",
                    "la válvula de agua",
                ),
                (
                    "Sprinkler",
                    "the sprinkler",
                    "Rasensprenger",
                    "den Rasensprenger",
                    "Aspersor",
                    "el aspersor",
                ),
            ),
            (("valve", "main", None),),
        ),
        Kind(
            "speaker_group",
            _names(
                (
                    "Downstairs Speakers",
                    "the downstairs speakers",
                    "Lautsprecher unten",
                    "die Lautsprecher unten",
                    "Altavoces de abajo",
                    "los altavoces de abajo",
                ),
                (
                    "All Speakers",
                    "all speakers",
                    "Alle Lautsprecher",
                    "alle Lautsprecher",
                    "Todos los altavoces",
                    "todos los altavoces",
                ),
            ),
            (("media_player", "group", None),),
            per_area=False,
        ),
        Kind(
            "todo",
            _names(
                (
                    "Shopping List",
                    "the shopping list",
                    "Einkaufsliste",
                    "die Einkaufsliste",
                    "Lista de la compra",
                    "la lista de la compra",
                ),
                (
                    "Personal Tasks",
                    "my personal tasks list",
                    "Persönliche Aufgaben",
                    "meine persönlichen Aufgaben",
                    "Tareas personales",
                    "mis tareas personales",
                ),
                (
                    "Hardware Store",
                    "the hardware store list",
                    "Baumarkt",
                    "die Baumarkt-Liste",
                    "Ferretería",
                    "la lista de la ferretería",
                ),
                (
                    "Chores",
                    "the chores list",
                    "Hausarbeit",
                    "die Hausarbeit-Liste",
                    "Tareas de casa",
                    "la lista de tareas de casa",
                ),
            ),
            (("todo", "main", None),),
            per_area=False,
        ),
    )
}

# Every home has these (in this order) before the seeded fill.
REQUIRED = (
    "lock",
    "garage",
    "light",
    "light",
    "blind",
    "speaker",
    "vacuum",
    "valve",
    "todo",
    "todo",
)
# The seeded fill draws kinds with these weights.
FILL_WEIGHTS = {
    "light": 8, "plug": 3, "fan": 1, "blind": 3, "climate": 2, "motion": 2,
    "speaker": 2, "lock": 1, "vacuum": 1, "valve": 1, "speaker_group": 1, "todo": 1,
}  # fmt: skip

TODO_ITEMS = {
    "en": ("milk", "eggs", "bread", "batteries", "call grandma", "water the plants"),
    "de": ("Milch", "Eier", "Brot", "Batterien", "Oma anrufen", "Blumen gießen"),
    "es": (
        "leche",
        "huevos",
        "pan",
        "pilas",
        "llamar a la abuela",
        "regar las plantas",
    ),
}
MEDIA_TITLES = ("Morning Jazz", "Evening News", "Road Trip Mix", "Podcast Weekly")


@dataclass(frozen=True, slots=True)
class Entity:
    """One entity of a device, with its start state and attributes."""

    entity_id: str
    domain: str
    role: str  # "main", "battery", "lock_state", ...
    suffix: str | None  # the entity's own name part; None: the device's name
    state: str
    attributes: Mapping[str, Any] = field(default_factory=dict)

    def friendly_name(self, device: Device, language: str) -> str:
        if self.suffix is None:
            return device.name.name
        return f"{device.name.name} {SUFFIXES[self.suffix][language]}"


@dataclass(frozen=True, slots=True)
class Device:
    key: str  # unique in the home
    kind: str
    name: Name
    area: int | None  # index into Home.areas
    entities: tuple[Entity, ...]


@dataclass(frozen=True, slots=True)
class Home:
    """A generated home; `areas` are (floor index or None, name)."""

    seed: int
    size: int
    language: str
    floors: tuple[Name, ...]
    areas: tuple[tuple[int | None, Name], ...]
    devices: tuple[Device, ...]

    @property
    def entities(self) -> list[tuple[Device, Entity]]:
        return [(d, e) for d in self.devices for e in d.entities]

    def area_of(self, device: Device) -> Name | None:
        return None if device.area is None else self.areas[device.area][1]

    def floor_of(self, device: Device) -> Name | None:
        if device.area is None or (level := self.areas[device.area][0]) is None:
            return None
        return self.floors[level]


def generate(seed: int, size: int, language: str) -> Home:
    """The home of about `size` entities for this seed, named in `language`."""
    rng = random.Random(f"{seed}-{size}-{language}")
    area_count = min(len(AREAS[language]), 4 + size // 15)
    areas = tuple(
        (level if level >= 0 else None, name)
        for level, name in AREAS[language][:area_count]
    )
    floors = tuple(FLOORS[language])
    devices: list[Device] = []
    placed: set[tuple[str, int | None]] = set()  # (name, area): one of each
    count = 0
    for index in range(10 * size):  # bounded: a home can run out of free names
        if count >= size:
            break
        kind_key = (
            REQUIRED[index]
            if index < len(REQUIRED)
            else rng.choices(list(FILL_WEIGHTS), weights=list(FILL_WEIGHTS.values()))[0]
        )
        kind = KINDS[kind_key]
        places = _areas_for(kind_key, areas) if kind.per_area else [None]
        options = [
            (name, area)
            for name in kind.names[language]
            for area in places
            if (name.name, area) not in placed
        ]
        if not options:
            continue  # a person would not add a second one of the same name
        # Lists and groups take their names in order; devices at random.
        name, area = options[0] if not kind.per_area else rng.choice(options)
        placed.add((name.name, area))
        count += len(kind.entities)
        key = f"{kind_key}_{index}"
        devices.append(
            Device(
                key,
                kind_key,
                name,
                area,
                _consistent(
                    [
                        _entity(
                            key,
                            domain=domain,
                            role=role,
                            suffix=suffix,
                            rng=rng,
                            language=language,
                        )
                        for domain, role, suffix in kind.entities
                    ]
                ),
            )
        )
    return Home(seed, size, language, floors, areas, tuple(devices))


def _consistent(entities: list[Entity]) -> tuple[Entity, ...]:
    """A lock-state sensor says what its lock is ("on": unlocked)."""
    locks = [e for e in entities if e.domain == "lock"]
    return tuple(
        replace(e, state="on" if locks[0].state == "unlocked" else "off")
        if e.role == "lock_state"
        else e
        for e in entities
    )


def _areas_for(kind: str, areas: tuple[tuple[int | None, Name], ...]) -> list[int]:
    """Garage doors go to the garage, valves to the garden, locks to the hallway
    (where the home has one), others anywhere."""
    preferred = {
        "garage": ("Garage", "Garaje"),
        "valve": ("Garden", "Garten", "Jardín"),
        "lock": ("Hallway", "Flur", "Pasillo"),
    }
    wanted = [i for i, (_, n) in enumerate(areas) if n.name in preferred.get(kind, ())]
    return wanted or list(range(len(areas)))


def _entity(
    key: str,
    *,
    domain: str,
    role: str,
    suffix: str | None,
    rng: random.Random,
    language: str,
) -> Entity:
    entity_id = f"{domain}.{key}" + (f"_{role}" if role != "main" else "")
    state, attributes = _start(domain, role, rng, language)
    return Entity(entity_id, domain, role, suffix, state, attributes)


def _start(
    domain: str, role: str, rng: random.Random, language: str
) -> tuple[str, dict[str, Any]]:
    """A seeded start state and its attributes."""
    on = rng.random() < 0.4
    if domain == "light":
        return (
            ("on", {"brightness": rng.choice((64, 128, 191, 255))})
            if on
            else ("off", {})
        )
    if domain in ("switch", "fan"):
        return ("on" if on else "off"), {}
    if domain == "cover" and role == "door":  # a garage door: no position
        return ("open" if on else "closed"), {}
    if domain == "cover":
        position = rng.choice((0, 0, 30, 100))
        return ("closed" if position == 0 else "open"), {"current_position": position}
    if domain == "lock":
        return ("locked" if rng.random() < 0.7 else "unlocked"), {}
    if domain == "valve":
        return ("open" if on else "closed"), {}
    if domain == "vacuum":
        return "docked", {}
    if domain == "media_player":
        state = rng.choice(("playing", "paused", "idle"))
        return state, {
            "volume_level": rng.choice((0.2, 0.3, 0.6)),
            "is_volume_muted": False,
            "media_title": rng.choice(MEDIA_TITLES) if state != "idle" else None,
        }
    if domain == "todo":
        items = rng.sample(TODO_ITEMS[language], 2)
        return str(len(items)), {"items": items}
    if domain == "binary_sensor":
        # lock_state is "on" when unlocked: set with its lock by the builder.
        return ("on" if role == "motion" and on else "off"), {}
    values = {
        "battery": str(rng.randrange(15, 100)),
        "signal": str(-rng.randrange(40, 90)),
        "temperature": f"{rng.randrange(170, 250) / 10:.1f}",
        "humidity": str(rng.randrange(35, 65)),
        "power": str(rng.randrange(0, 1500) if on else 0),
    }
    return values[role], {}
