"""A call's arguments against the user's words and the offered tools.

Small models fill every numeric slot they are shown (a light's colour
temperature 0 beside the brightness asked for), put the level said into the
wrong slot ("area": "70 por ciento"), and call the first tool listed with
another tool's arguments (HassTurnOn with "position": 20). The user's digits
are the same in every language, so the call's numbers are checked against
them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
import re
from typing import Any

from .lang import every, way_said
from .pointed import TARGET_ARGUMENTS, kinds_named, targets_the_home
from .router import (
    asked_part,
    asks_an_action,
    core_tools,
    own_verb_fit,
    request_fit,
    tells,
    verb_fit,
)
from .spoken_numbers import in_digits
from .text import any_of
from .textproto import repair_arguments, validate_arguments
from .types import JsonObject, ToolSpec

# A number on its own: not "light_3", "4K" or a part of "1.2.3".
_NUMBER_RE = re.compile(r"(?<![\w.,])\d+(?:[.,]\d+)?(?!\w|[.,]\d)")
_PERCENT_RE = re.compile(
    rf"(?<![\w.,])(\d+)\s*(?:%|\b(?:{any_of(every(lambda pack: pack.percent_words))})\b)",
    re.IGNORECASE,
)


def said_numbers(text: str) -> list[float]:
    """The numbers written in a text, as numbers ("21,5" is 21.5)."""
    return [float(found.replace(",", ".")) for found in _NUMBER_RE.findall(text)]


def numbers_said(text: str, language: str | None) -> list[float]:
    """The numbers a text says, in digits or its language's words."""
    return said_numbers(in_digits(text, language))


def _is_percentage(schema: Mapping[str, Any]) -> bool:
    return (
        schema.get("type") in ("integer", "number")
        and schema.get("minimum") == 0
        and schema.get("maximum") == 100
    )


def _numbers_in(value: Any, language: str | None) -> list[float]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, str):
        return numbers_said(value, language)
    if isinstance(value, list):
        return [number for item in value for number in _numbers_in(item, language)]
    return []


def backed_by_request(
    tool: ToolSpec, args: JsonObject, request: str, language: str | None = None
) -> JsonObject:
    """A level tool's call (one percentage argument, 0 to 100) with its
    numbers checked against the request's; other calls as they are.

    - An optional numeric argument whose number the user never said (or
      said for another argument) is a guess, and is dropped.
    - A number said in percent under a name the tool does not take is the
      level (0.5B gave HassLightSet a fan's "percentage").
    - A level the call leaves out is the one the request says: a number
      with "%" or its language's "percent", or else its only number, unless
      the call has that number in a name ("speaker 2", "floor 2").

    Numbers said in words count as said ("fifty percent").
    """
    request = in_digits(request, language)
    args = _said_number_in_place(tool, args, request)
    properties: Mapping[str, Any] = tool.parameters.get("properties") or {}
    levels = [name for name, schema in properties.items() if _is_percentage(schema)]
    if len(levels) != 1:
        return args
    (level_name,) = levels
    required = set(tool.parameters.get("required") or ())
    # Each number said backs one argument, the level first: "auf 70 Prozent"
    # is no colour temperature of 70 as well.
    unclaimed = said_numbers(request)
    # A number said in percent is the level's, whatever the level's value:
    # "auf 40 Prozent" with a made-up brightness 50 is no colour temperature
    # of 40.
    percents = {float(found) for found in _PERCENT_RE.findall(request)}
    checked: JsonObject = {}
    for name in sorted(args, key=lambda name: name != level_name):
        value = args[name]
        # An argument the tool does not take counts as a number too: 0.5B's
        # "percentage" for HassLightSet was the brightness said in percent.
        numeric = name not in properties or properties[name].get("type") in (
            "integer",
            "number",
        )
        if (
            not numeric
            or isinstance(value, bool)
            or not isinstance(value, (int, float))
        ):
            checked[name] = value
        elif name != level_name and name not in required and float(value) in percents:
            continue
        elif name not in properties:
            checked[name] = value
        elif float(value) in unclaimed or name in required:
            if float(value) in unclaimed:
                unclaimed.remove(float(value))
            checked[name] = value
    if (
        level_name in checked
        or (level := _said_level(request, checked, language)) is None
    ):
        return checked
    whole = properties[level_name].get("type") == "integer"
    return checked | {level_name: int(level) if whole else level}


def _said_number_in_place(tool: ToolSpec, args: JsonObject, request: str) -> JsonObject:
    """A call with the number the user said, under a name the tool does not
    take, moved to the one number the tool requires and the call lacks:
    0.5B set the thermostat "to 21" with "percentage": 21."""
    properties: Mapping[str, Any] = tool.parameters.get("properties") or {}
    missing = [
        name
        for name in tool.parameters.get("required") or ()
        if name not in args and _is_number(properties.get(name) or {})
    ]
    said = said_numbers(request)
    foreign = [
        name
        for name, value in args.items()
        if name not in properties
        and isinstance(value, (int, float))
        and not isinstance(value, bool)
        and float(value) in said
    ]
    if len(missing) != 1 or len(foreign) != 1:
        return args
    moved = {name: value for name, value in args.items() if name != foreign[0]}
    return moved | {missing[0]: args[foreign[0]]}


def said_percent(request: str) -> float | None:
    """The one level in percent a request says ("20 %", "20 Prozent"), or None."""
    percents = {float(found) for found in _PERCENT_RE.findall(request)}
    if len(percents) != 1 or (level := percents.pop()) > 100:
        return None
    return level


def _said_level(request: str, args: JsonObject, language: str | None) -> float | None:
    """The one level a request says, or None."""
    if _PERCENT_RE.search(request):
        return said_percent(request)
    said = said_numbers(request)
    in_names = {
        number for value in args.values() for number in _numbers_in(value, language)
    }
    if len(said) != 1 or said[0] in in_names or not 0 <= said[0] <= 100:
        return None
    return said[0]


# The arguments that pick a call's devices by name, area or floor.
_NAMING = frozenset({"name", "area", "floor"})
# The relative steps HA's tools take by name (HassSetVolumeRelative's
# "volume_step"), which the request's words say (`lang.way_said`).
_STEPS = ("up", "down")


def fitting_tool(
    tool: ToolSpec,
    args: JsonObject,
    offered: Iterable[ToolSpec],
    request: str,
    language: str | None = None,
    *,
    catalogue: Iterable[ToolSpec] = (),
) -> ToolSpec:
    """The offered tool a call was meant for: the one called, unless its
    arguments (`_by_arguments`) or the request's verbs (`_by_verbs`, or
    `_by_missing` for a call its tool cannot run, `_by_look_up` for a
    look-up's call on devices) say which other one, and
    then the one that takes a step the request says instead of a level
    (`_by_step`), or instead of an action of its own it does not say: that
    one from the whole catalogue (`_by_kind_step`). Numbers said in words
    count as said."""
    request = in_digits(request, language)
    offered = _of_the_kinds_named(tool, list(offered), request)
    catalogue = _of_the_kinds_named(tool, list(catalogue), request)
    if stepped := _by_kind_step(tool, args, catalogue, request, language):
        return stepped
    others = [other for other in offered if other.name != tool.name]
    fitted = (
        _by_arguments(tool, args, others, request)
        or _by_verbs(tool, args, others, request)
        or _by_missing(tool, args, others, request)
        or _by_look_up(tool, args, others, request)
        or tool
    )
    # A mute call was the volume's by its verbs, and the volume's level
    # was a guess: "turn up the volume" is a step up.
    others = [other for other in offered if other.name != fitted.name]
    return _by_step(fitted, args, others, request, language) or fitted


def _of_the_kinds_named(
    tool: ToolSpec, tools: list[ToolSpec], request: str
) -> list[ToolSpec]:
    """The tools a call may move to: where the request names a kind of
    device the called tool acts on ("lights"), none that acts on other kinds
    only. "make the ceiling lights warmer" as HassLightSet had moved to the
    thermostat's tool, whose word "warmer" is."""
    named = kinds_named(request)
    if not named & tool.kinds:
        return tools
    return [other for other in tools if not other.kinds or named & other.kinds]


def _step_arguments(tool: ToolSpec) -> list[str]:
    """The arguments of a tool that take a step by name ("up", "down")."""
    properties: Mapping[str, Any] = tool.parameters.get("properties") or {}
    return [
        name
        for name, schema in properties.items()
        if any(
            set(option.get("enum") or ()) == set(_STEPS)
            for option in schema.get("anyOf") or [schema]
        )
    ]


def _by_step(
    tool: ToolSpec,
    args: JsonObject,
    others: list[ToolSpec],
    request: str,
    language: str | None,
) -> ToolSpec | None:
    """The tool that takes a step ("up", "down"), for a call that sets a
    level the request never says where it says a step: 0.5B wrote "turn up
    the volume in the kitchen" as HassSetVolume with "volume_level": 100,
    and "turn down the volume" with 50, which may be louder than before."""
    properties: Mapping[str, Any] = tool.parameters.get("properties") or {}
    guessed = {
        name
        for name in tool.parameters.get("required") or ()
        if _is_number(properties.get(name) or {})
    }
    if (
        not guessed
        or said_numbers(request)
        or way_said(request, language, _STEPS) is None
    ):
        return None
    kept = {name for name in args if name not in guessed}
    # What picks the devices must carry over; a kind the other tool implies
    # ("domain": "media_player") need not.
    naming = kept & _NAMING

    def takes(other: ToolSpec) -> int:
        taken = other.parameters.get("properties") or {}
        steps = _step_arguments(other)
        needed = set(other.parameters.get("required") or ()) - set(steps)
        if not steps or not naming <= taken.keys() or not needed <= kept:
            return 0
        return verb_fit(other, request)

    return _best([(takes(other), other) for other in others])


def _by_kind_step(
    tool: ToolSpec,
    args: JsonObject,
    catalogue: Iterable[ToolSpec],
    request: str,
    language: str | None,
) -> ToolSpec | None:
    """The tool for the same kind of device that takes a step, for a call of
    a tool with verbs of its own, none of which the request says, where it
    says a step and no number: 0.5B sent "turn down the music in the
    kitchen" as HassMediaNext, and the track was skipped. "music" had
    offered only the player tools it names, not the relative volume."""
    if (
        not tool.kinds
        or _step_arguments(tool)
        or said_numbers(request)
        or way_said(request, language, _STEPS) is None
    ):
        return None
    others = [other for other in catalogue if other.name != tool.name]
    if own_verb_fit(tool, request, others) != 0:
        return None
    naming = args.keys() & _NAMING

    def takes(other: ToolSpec) -> bool:
        steps = _step_arguments(other)
        needed = set(other.parameters.get("required") or ()) - set(steps)
        taken = other.parameters.get("properties") or {}
        return (
            other.kinds == tool.kinds
            and bool(steps)
            and naming <= taken.keys()
            and needed <= args.keys()
        )

    return _best([(1, other) for other in others if takes(other)])


def with_said_step(
    tool: ToolSpec, args: JsonObject, request: str, language: str | None = None
) -> JsonObject:
    """A call with the step the request says ("up", "down") in each of the
    tool's step arguments, unless it holds a number the user said ("turn it
    up by 10", "by ten")."""
    if (step := way_said(request, language, _STEPS)) is None:
        return args
    said = numbers_said(request, language)

    def kept(value: Any) -> bool:
        numbers = _numbers_in(value, language)
        return numbers != [] and set(numbers) <= set(said)

    return args | {
        name: step for name in _step_arguments(tool) if not kept(args.get(name))
    }


def _by_arguments(
    tool: ToolSpec, args: JsonObject, others: list[ToolSpec], request: str
) -> ToolSpec | None:
    """The other tool a call's arguments fit, where the called tool does not
    take some of them and exactly one other tool takes more of those, with
    all it requires and all the called tool requires. Unless one of those is
    a number the user said, it must also fit the request's words, and as
    well (0.5B's HassClimateSetTemperature with a made-up "domain" had become
    HassLightSet, which has a colour "temperature", for "raise it to 23").
    HassTurnOn with "position": 20 and a made-up "brightness": 100 is
    HassSetPosition's call; HassListAddItem with an item and a made-up
    "conversation_command" stays a to-do add, not a timer; "setze den
    Fernseher fort" as HassMediaUnpause with a made-up "is_volume_muted"
    stays an unpause, not a mute."""
    own: Mapping[str, Any] = tool.parameters.get("properties") or {}
    foreign = [name for name in args if name not in own]
    if not own or not foreign:
        return None
    said = said_numbers(request)
    needed = set(tool.parameters.get("required") or ())
    fit = request_fit(tool, request)
    # A tool of its own words the request says is not left for one whose
    # words it does not say: 0.5B's HassLightSet with a "percentage" for
    # "set the spotlights … to 50 percent" had become HassFanSetSpeed. The
    # on/off tools' words say too little for that.
    own_words = tool not in core_tools([tool]) and verb_fit(tool, request) > 0

    def takes(other: ToolSpec) -> int:
        properties: Mapping[str, Any] = other.parameters.get("properties") or {}
        if any(name not in args for name in other.parameters.get("required") or ()):
            return 0
        if any(name not in properties for name in needed):
            return 0
        if own_words and not verb_fit(other, request):
            return 0
        taken = [
            name
            for name in foreign
            if name in properties and _backed(args[name], properties[name], said)
        ]
        if not any(_is_number(properties[name]) for name in taken) and (
            (other_fit := request_fit(other, request)) < fit or not other_fit
        ):
            return 0
        return len(taken)

    return _best([(takes(other), other) for other in others])


def _by_verbs(
    tool: ToolSpec, args: JsonObject, others: list[ToolSpec], request: str
) -> ToolSpec | None:
    """The other tool the request's household verbs name, for a call of a
    tool that no word of the request fits, if it takes the call's arguments
    as they are: 0.5B wrote "silencia el altavoz" as HassTurnOff. A tool
    with verbs of its own fits only by those: 0.5B wrote "turn up the volume
    in the kitchen" as HassMediaPlayerMute, and "volume" is a word of every
    player's tool. The on/off and state tools fit by any of their words, and
    none is chosen: their words are nouns too ("the back door lock needs to
    be unlocked" is no lock; "tell me the bedroom temperature" no dimming)."""
    core = core_tools([*others, tool])
    own = None if tool in core else own_verb_fit(tool, request, others)
    if own if own is not None else request_fit(tool, request):
        return None

    def fit(other: ToolSpec) -> int:
        # A tool that takes every argument wins a tie with one that takes
        # only those the called tool takes.
        if not (verbs := verb_fit(other, request)):
            return 0
        if _takes_as_they_are(other, args):
            return 2 * verbs + 1
        return 2 * verbs if _takes_as_they_are(other, _taken(tool, args, others)) else 0

    return _best([(fit(other), other) for other in others if other not in core])


def _by_missing(
    tool: ToolSpec, args: JsonObject, others: list[ToolSpec], request: str
) -> ToolSpec | None:
    """The tool the request's verbs fit best, the on/off tools too, for a
    call that lacks what its tool requires, or the level that is all it
    sets, in a request that says no number to fill it with: 0.5B sent "turn
    on the fan" as HassFanSetSpeed with no speed, which does nothing else."""
    if said_numbers(request) or (
        all(name in args for name in tool.parameters.get("required") or ())
        and not _sets_only(tool, args)
    ):
        return None
    return _best(
        [
            (verb_fit(other, request), other)
            for other in others
            if _takes_as_they_are(other, _taken(tool, args, others))
            and all(name in args for name in other.parameters.get("required") or ())
        ]
    )


def _sets_only(tool: ToolSpec, args: JsonObject) -> bool:
    """Whether a tool sets one level, and nothing else a call could give it
    besides what picks its devices, and the call leaves that level out (a
    fan's speed, which a step said may stand for)."""
    properties: Mapping[str, Any] = tool.parameters.get("properties") or {}
    settings = [name for name in properties if name not in TARGET_ARGUMENTS]
    return (
        len(settings) == 1
        and _is_percentage(properties[settings[0]])
        and settings[0] not in args
    )


def _by_look_up(
    tool: ToolSpec, args: JsonObject, others: list[ToolSpec], request: str
) -> ToolSpec | None:
    """The tool the request's verbs fit best, for a call that names devices
    to a tool that only tells (the live states' look-up), in a request that
    says an action and asks nothing: 0.5B sent "open all the windows" as
    GetLiveContext with the windows' name, and nothing opened. The tool
    must take the names as they are and need nothing more."""
    if (
        not tells(tool)
        or not targets_the_home(args)
        or asked_part(request) is not None
        or not asks_an_action(request)
    ):
        return None
    naming = args.keys() & _NAMING

    def takes(other: ToolSpec) -> bool:
        properties = other.parameters.get("properties") or {}
        needed = set(other.parameters.get("required") or ())
        return naming <= properties.keys() and needed <= naming

    return _best(
        [(verb_fit(other, request), other) for other in others if takes(other)]
    )


def _taken(tool: ToolSpec, args: JsonObject, tools: Iterable[ToolSpec]) -> JsonObject:
    """A call's arguments its own tool takes, but a domain that no tool and
    no language knows: either may be made up ("is_volume_muted" of
    HassMediaNext for "setze den Lautsprecher fort", which had kept the
    call from HassMediaUnpause; the domain "garage" of HassTurnOn for
    "setze den Fernseher fort", which turned the TV on)."""
    properties = tool.parameters.get("properties") or {}
    known = _known_domains([tool, *tools])
    return {
        name: value
        for name, value in args.items()
        if name in properties
        and (name != "domain" or all(v in known for v in _as_strings(value)))
    }


def _known_domains(tools: Iterable[ToolSpec]) -> set[str]:
    """The domains the tools' schemas offer and the languages have words for."""
    known = set(every(lambda pack: pack.kind_words)) | set(
        every(lambda pack: pack.verb_domains)
    )
    for tool in tools:
        domain = (tool.parameters.get("properties") or {}).get("domain") or {}
        for schema in (domain, domain.get("items") or {}):
            known.update(str(value) for value in schema.get("enum") or ())
    return known


def _as_strings(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [str(v).strip().lower() for v in values]


def _takes_as_they_are(tool: ToolSpec, args: JsonObject) -> bool:
    """Whether a tool takes each of a call's arguments, once its slips are
    put right (`repair_arguments`: "receiver/speaker/tv" copied from the
    tool section is those three), and none is dropped as one it refuses
    (a "domain" of "light" for a player's tool)."""
    properties = tool.parameters.get("properties") or {}
    repaired = repair_arguments(tool, args)
    return (
        all(name in properties for name in args)
        and repaired.keys() == args.keys()
        and validate_arguments(tool, repaired) is None
    )


def _best(fits: list[tuple[int, ToolSpec]]) -> ToolSpec | None:
    """The one tool with the highest score above zero, if one has it."""
    best = max((score for score, _ in fits), default=0)
    chosen = [other for score, other in fits if score == best]
    return chosen[0] if best and len(chosen) == 1 else None


def _is_number(schema: Mapping[str, Any]) -> bool:
    """Whether an argument takes a number (`_backed`: one the user said)."""
    return schema.get("type") in ("integer", "number")


def _backed(value: Any, schema: Mapping[str, Any], said: list[float]) -> bool:
    """Whether an argument's value may be what the user meant: a number
    must be one they said."""
    if not _is_number(schema):
        return True
    return isinstance(value, (int, float)) and float(value) in said
