"""Commands for a generated home, from templates per category and language.

Each template yields every command it can make in a home (`candidates`); a
benchmark draws `per_category` of each category with the seed (`draw`). The
mined category, "matcher_miss", is found by running HA's intent matcher on a
seeded sample of all candidates, loose phrasings included (see `run.mine`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
import random
from typing import Any

from bench.scenarios.model import Expected, Turn

from . import home as gen

CATEGORIES = (
    "onoff",
    "cover",
    "level",
    "question",
    "todo",
    "media",
    "vacuum",
    "valve",
    "floor",
    "two_step",
    "sensitive",
    "matcher_miss",
)
MINED = "matcher_miss"
YES = {"en": "yes", "de": "ja", "es": "sí"}


@dataclass(frozen=True, slots=True)
class Task:
    """A command and the house it must leave (and, for questions, the reply)."""

    id: str
    category: str
    language: str
    text: str
    changes: Mapping[str, Expected] = field(default_factory=dict)
    allow: tuple[str, ...] = ()  # entities that may change along (a lock's sensor)
    reply: tuple[str, ...] = ()  # any-of groups the reply must contain
    todo_item: tuple[str, str] | None = None  # (list entity, item it must hold)

    def turn(self) -> Turn:
        return Turn(self.text, self.changes, self.allow, self.reply)

    def with_category(self, category: str, number: int) -> Task:
        home_key = self.id.split("/")[0]
        return replace(self, id=f"{home_key}/{category}/{number}", category=category)


# Phrasings: {the} the target with its article, {where} " in the <area>" when its
# name is not unique in the home, {n} a number, {item} a to-do item.
type Phrases = Mapping[
    str, Mapping[str, tuple[str, ...]]
]  # key -> language -> phrasings

PHRASES: Phrases = {
    "on": {
        "en": ("turn on {the}{where}", "switch on {the}{where}"),
        "de": ("schalte {the}{where} ein", "mach {the}{where} an"),
        "es": ("enciende {the}{where}", "prende {the}{where}"),
    },
    "off": {
        "en": ("turn off {the}{where}", "switch off {the}{where}"),
        "de": ("schalte {the}{where} aus", "mach {the}{where} aus"),
        "es": ("apaga {the}{where}",),
    },
    "open": {
        "en": ("open {the}{where}",),
        "de": ("öffne {the}{where}", "mach {the}{where} auf"),
        "es": ("abre {the}{where}",),
    },
    "close": {
        "en": ("close {the}{where}", "shut {the}{where}"),
        "de": ("schließe {the}{where}", "mach {the}{where} zu"),
        "es": ("cierra {the}{where}",),
    },
    "lock": {
        "en": ("lock {the}{where}",),
        "de": ("verriegle {the}{where}", "schließ {the}{where} ab"),
        "es": ("cierra con llave {the}{where}",),
    },
    "unlock": {
        "en": ("unlock {the}{where}",),
        "de": ("entriegle {the}{where}", "schließ {the}{where} auf"),
        "es": ("desbloquea {the}{where}", "abre con llave {the}{where}"),
    },
    "level": {
        "en": ("set {the}{where} to {n}%", "set {the}{where} to {n} percent"),
        "de": ("stelle {the}{where} auf {n}%", "stelle {the}{where} auf {n} Prozent"),
        "es": ("pon {the}{where} al {n}%", "pon {the}{where} al {n} por ciento"),
    },
    "volume": {
        "en": ("set the volume of {the}{where} to {n}%",),
        "de": ("stelle die Lautstärke {of}{where} auf {n}%",),
        "es": ("pon el volumen {of}{where} al {n}%",),
    },
    "pause": {
        "en": ("pause {the}{where}",),
        "de": ("pausiere {the}{where}",),
        "es": ("pausa {the}{where}",),
    },
    "resume": {
        "en": ("resume {the}{where}",),
        "de": ("setze {the}{where} fort",),
        "es": ("reanuda {the}{where}",),
    },
    "mute": {
        "en": ("mute {the}{where}",),
        "de": ("schalte {the}{where} stumm",),
        "es": ("silencia {the}{where}",),
    },
    "start": {
        "en": ("start {the}{where}", "start the vacuum {in}"),
        "de": ("starte {the}{where}", "starte den Staubsauger {in}"),
        "es": ("inicia {the}{where}", "pon en marcha la aspiradora {in}"),
    },
    "temperature": {
        "en": ("what is the temperature {in}?",),
        "de": ("wie warm ist es {in}?",),
        "es": ("¿qué temperatura hace {in}?",),
    },
    "battery": {
        "en": ("what is the battery level of {the}{where}?",),
        "de": ("wie ist der Batteriestand {of}{where}?",),
        "es": ("¿cuál es el nivel de batería {of}{where}?",),
    },
    "locked?": {
        "en": ("is {the}{where} locked?",),
        "de": ("ist {the}{where} abgeschlossen?",),
        "es": ("¿está cerrada con llave {the}{where}?",),
    },
    "playing?": {
        "en": ("what is playing on {the}{where}?",),
        "de": ("was läuft auf {dat}{where}?",),
        "es": ("¿qué suena en {the}{where}?",),
    },
    "add": {
        "en": ("add {item} to {the}",),
        "de": ("setze {item} auf {the}",),
        "es": ("añade {item} a {the}",),
    },
    "list?": {
        "en": ("what is on {the}?",),
        "de": ("was steht auf {dat}?",),
        "es": ("¿qué hay en {the}?",),
    },
    "floor_off": {
        "en": ("turn off all the lights {in}", "turn off the lights {in}"),
        "de": ("schalte alle Lichter {in} aus",),
        "es": ("apaga todas las luces {in}",),
    },
    "floor_on": {
        "en": ("turn on all the lights {in}",),
        "de": ("schalte alle Lichter {in} ein",),
        "es": ("enciende todas las luces {in}",),
    },
    "then": {"en": (" and then ",), "de": (" und dann ",), "es": (" y luego ",)},
}

# Looser phrasings people use: only in the pool the mined category is drawn from.
LOOSE: Phrases = {
    "on": {
        "en": ("can you switch {the}{where} on please", "{the}{where} on"),
        "de": ("kannst du {the}{where} bitte einschalten",),
        "es": ("¿puedes encender {the}{where}, por favor?",),
    },
    "off": {
        "en": ("kill {the}{where}", "I don't need {the}{where} anymore, switch it off"),
        "de": ("{the}{where} bitte ausschalten",),
        "es": ("apágame {the}{where}",),
    },
    "open": {
        "en": ("let some light in, open {the}{where}",),
        "de": ("{the}{where} bitte hochfahren",),
        "es": ("sube {the}{where}",),
    },
    "close": {
        "en": ("lower {the}{where} all the way",),
        "de": ("fahr {the}{where} runter",),
        "es": ("baja {the}{where} del todo",),
    },
    "level": {
        "en": ("I want {the}{where} at {n} percent",),
        "de": ("{the}{where} auf {n} Prozent bitte",),
        "es": ("quiero {the}{where} al {n} por ciento",),
    },
    "add": {
        "en": ("remind me: {item}, put it on {the}",),
        "de": ("schreib {item} auf {the}",),
        "es": ("apunta {item} en {the}",),
    },
    "start": {
        "en": ("vacuum {area_the}", "clean {area_the} with the robot"),
        "de": ("saug {area_the}",),
        "es": ("aspira {area_the}",),
    },
}

LOCKED_WORDS = {
    True: {"en": "locked|yes", "de": "abgeschlossen|verriegelt|ja", "es": "cerrada|bloqueada|sí"},
    False: {"en": "unlocked|no", "de": "nicht abgeschlossen|entriegelt|offen|nein", "es": "abierta|desbloqueada|no"},
}  # fmt: skip


def _slots(home: gen.Home, device: gen.Device) -> dict[str, str]:
    same_name = sum(d.name.name == device.name.name for d in home.devices)
    area = home.area_of(device)
    where = f" {area.in_}" if same_name > 1 and area is not None else ""
    the = device.name.the
    return {
        "the": the,
        "where": where,
        "of": _of(the, home.language),
        "dat": _dative(the, home.language),
        "in": area.in_ if area else "",
        "area_the": area.the if area else "",
    }


def _of(the: str, language: str) -> str:
    """ "of the X": German "vom/von der", Spanish "del/de la"."""
    if language == "de":
        article, _, rest = the.partition(" ")
        return {
            "den": f"vom {rest}",
            "das": f"vom {rest}",
            "die": f"von der {rest}",
        }.get(article, f"von {the}")
    if language == "es":
        return (
            "del " + the.removeprefix("el ") if the.startswith("el ") else f"de {the}"
        )
    return f"of {the}"


def _dative(the: str, language: str) -> str:
    """German dative after "auf" ("auf dem Fernseher"); others as they are."""
    if language != "de":
        return the
    article, _, rest = the.partition(" ")
    dative = {"den": "dem", "das": "dem", "die": "der", "meine": "meinen"}.get(article)
    return f"{dative} {rest}" if dative else the


type Maker = Callable[[gen.Home, random.Random, Phrases], Iterator[Task]]


def _say(
    phrases: Phrases,
    key: str,
    home: gen.Home,
    slots: Mapping[str, Any],
) -> Iterator[str]:
    for phrase in phrases.get(key, {}).get(home.language, ()):
        yield phrase.format(**slots)


def _main(home: gen.Home, *domains: str) -> Iterator[tuple[gen.Device, gen.Entity]]:
    for device, entity in home.entities:
        if entity.domain in domains and entity.role in ("main", "door", "group"):
            yield device, entity


def _task(home: gen.Home, category: str, text: str, **fields: Any) -> Task:
    return Task(id=f"{home.language}{home.size}-{home.seed}/{category}", category=category,
                language=home.language, text=text, **fields)  # fmt: skip


def _onoff(home: gen.Home, _rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    for device, entity in _main(home, "light", "switch", "fan"):
        key = "off" if entity.state == "on" else "on"
        for text in _say(phrases, key, home, _slots(home, device)):
            yield _task(home, "onoff", text, changes={entity.entity_id: key})


def _cover(home: gen.Home, _rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    for device, entity in _main(home, "cover"):
        if device.kind == "garage":
            continue  # opening the garage door is a sensitive command
        key = "close" if entity.state == "open" else "open"
        want = {"state": "closed" if key == "close" else "open"}
        if "current_position" in entity.attributes:
            want["current_position"] = 0 if key == "close" else 100
        for text in _say(phrases, key, home, _slots(home, device)):
            yield _task(home, "cover", text, changes={entity.entity_id: want})


def _level(home: gen.Home, rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    for device, entity in _main(home, "light", "cover", "media_player"):
        n = rng.choice((20, 40, 50, 70))
        slots = _slots(home, device) | {"n": n}
        if entity.domain == "light" and entity.role == "main":
            want: Expected = {"state": "on", "brightness": round(n * 255 / 100)}
            key = "level"
        elif entity.domain == "cover" and "current_position" in entity.attributes:
            want, key = {"current_position": n}, "level"
        elif entity.domain == "media_player":
            want, key = {"volume_level": n / 100}, "volume"
        else:
            continue
        for text in _say(phrases, key, home, slots):
            yield _task(home, "level", text, changes={entity.entity_id: want})


def _question(home: gen.Home, _rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    asked_areas: set[str] = set()
    for device, entity in home.entities:
        slots = _slots(home, device)
        if entity.role == "temperature" and slots["in"] not in asked_areas:
            asked_areas.add(slots["in"])
            value = entity.state
            groups = (f"{value}|{value.replace('.', ',')}",)
            key = "temperature"
        elif entity.role == "battery" and entity.domain == "sensor":
            groups, key = (entity.state,), "battery"
        elif entity.domain == "lock":
            groups = (LOCKED_WORDS[entity.state == "locked"][home.language],)
            key = "locked?"
        elif entity.domain == "media_player" and entity.attributes.get("media_title"):
            groups, key = (str(entity.attributes["media_title"]),), "playing?"
        else:
            continue
        for text in _say(phrases, key, home, slots):
            yield _task(home, "question", text, reply=groups)


def _todo(home: gen.Home, rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    for device, entity in _main(home, "todo"):
        items = list(entity.attributes["items"])
        new = rng.choice([i for i in gen.TODO_ITEMS[home.language] if i not in items])
        slots = _slots(home, device) | {"item": new}
        for text in _say(phrases, "add", home, slots):
            yield _task(home, "todo", text, allow=(entity.entity_id,),
                        todo_item=(entity.entity_id, new))  # fmt: skip
        for text in _say(phrases, "list?", home, slots):
            yield _task(home, "todo", text, reply=tuple(items))


def _media(home: gen.Home, _rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    for device, entity in _main(home, "media_player"):
        slots = _slots(home, device)
        options: list[tuple[str, Expected]] = [("mute", {"is_volume_muted": True})]
        if entity.state == "playing":
            options.append(("pause", "paused"))
        elif entity.state == "paused":
            options.append(("resume", "playing"))
        for key, want in options:
            for text in _say(phrases, key, home, slots):
                yield _task(home, "media", text, changes={entity.entity_id: want})


def _vacuum(home: gen.Home, _rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    for device, entity in _main(home, "vacuum"):
        for text in _say(phrases, "start", home, _slots(home, device)):
            yield _task(home, "vacuum", text, changes={entity.entity_id: "cleaning"})


def _valve(home: gen.Home, _rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    for device, entity in _main(home, "valve"):
        key = "close" if entity.state == "open" else "open"
        want = "closed" if key == "close" else "open"
        for text in _say(phrases, key, home, _slots(home, device)):
            yield _task(home, "valve", text, changes={entity.entity_id: want})


def _floor(home: gen.Home, _rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    for floor in home.floors:
        lights = [
            e
            for d, e in home.entities
            if e.domain == "light" and home.floor_of(d) == floor
        ]
        if len(lights) < 2:
            continue
        key = "floor_off" if any(e.state == "on" for e in lights) else "floor_on"
        want = "off" if key == "floor_off" else "on"
        for text in _say(phrases, key, home, {"in": floor.in_}):
            yield _task(
                home, "floor", text, changes={e.entity_id: want for e in lights}
            )


def _two_step(home: gen.Home, rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    singles = [*_onoff(home, rng, phrases), *_cover(home, rng, phrases)]
    joiner = PHRASES["then"][home.language][0]
    for first in singles:
        for second in singles:
            if set(first.changes) & set(second.changes) or first.text >= second.text:
                continue
            yield _task(home, "two_step", first.text + joiner + second.text,
                        changes={**first.changes, **second.changes})  # fmt: skip


def _sensitive(home: gen.Home, _rng: random.Random, phrases: Phrases) -> Iterator[Task]:
    for device, entity in _main(home, "lock", "cover"):
        slots = _slots(home, device)
        if entity.domain == "lock":
            key = "unlock" if entity.state == "locked" else "lock"
            want = "unlocked" if key == "unlock" else "locked"
            allow = tuple(
                e.entity_id for e in device.entities if e.role == "lock_state"
            )
        elif device.kind == "garage":
            key = "close" if entity.state == "open" else "open"
            want, allow = ("closed" if key == "close" else "open"), ()
        else:
            continue
        for text in _say(phrases, key, home, slots):
            yield _task(
                home, "sensitive", text, changes={entity.entity_id: want}, allow=allow
            )


MAKERS: Mapping[str, Maker] = {
    "onoff": _onoff,
    "cover": _cover,
    "level": _level,
    "question": _question,
    "todo": _todo,
    "media": _media,
    "vacuum": _vacuum,
    "valve": _valve,
    "floor": _floor,
    "two_step": _two_step,
    "sensitive": _sensitive,
}


def candidates(home: gen.Home, phrases: Phrases = PHRASES) -> dict[str, list[Task]]:
    """Every command the templates make in this home, by category."""
    return {
        category: list(make(home, random.Random(f"{home.seed}-{category}"), phrases))
        for category, make in MAKERS.items()
    }


def draw(home: gen.Home, per_category: int) -> list[Task]:
    """`per_category` commands of each template category, drawn with the seed."""
    rng = random.Random(f"draw-{home.seed}-{home.size}-{home.language}")
    tasks = []
    for category, pool in candidates(home).items():
        for number, task in enumerate(rng.sample(pool, min(per_category, len(pool)))):
            tasks.append(task.with_category(category, number))
    return tasks


def mining_pool(home: gen.Home, size: int) -> list[Task]:
    """A seeded sample of every command, loose phrasings included, for mining."""
    phrases = {
        key: {
            language: PHRASES.get(key, {}).get(language, ())
            + LOOSE.get(key, {}).get(language, ())
            for language in gen.LANGUAGES
        }
        for key in PHRASES.keys() | LOOSE.keys()
    }
    pool = [
        task
        for category, tasks in candidates(home, phrases).items()
        if category != "two_step"  # two commands: the matcher never takes them
        for task in tasks
    ]
    rng = random.Random(f"mine-{home.seed}-{home.size}-{home.language}")
    return rng.sample(pool, min(size, len(pool)))
