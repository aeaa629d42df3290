"""Intent tools whose failed match is told in words a model can use: HA's
own text is the repr of the match, after which 0.5B repeated the call."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from homeassistant.components.climate.const import (
    INTENT_SET_TEMPERATURE,
    ClimateEntityFeature,
)
from homeassistant.components.media_player.const import (
    INTENT_MEDIA_SEARCH_AND_PLAY,
    INTENT_SET_VOLUME_RELATIVE,
    MediaPlayerEntityFeature,
)
from homeassistant.const import ATTR_TEMPERATURE
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.util.json import JsonObjectType

from ..engine.pointed import kinds_named
from ..engine.results import NO_MATCH, WRONG_TOOL
from ..safety.holds import user_text
from .builtin import WrappingTool, innermost, intent_type_of
from .deeds import TEMPERATURE_SET, with_did_phrase
from .hub import JarvisTools
from .matching import ENTITIES, KindMatching, Slots
from .meant import MAX_CHOICES, Answer, which
from .places import unknown_places
from .steps import level_unsaid, unrequired
from .targets import repair_targets
from .thermostat import meant_temperature


class MatchInWordsTool(WrappingTool):
    """An intent tool of HA's that matches targets its own way (the
    thermostat's, the volume's): the call's targets are put right first as
    a service intent's are (`repair_targets`), by the kinds of device it
    acts on, and a failed match is told in words (`match_failure`): HA's
    text, the repr of the match, left 0.5B repeating the call. The
    thermostat's temperature is the user's (`meant_temperature`)."""

    def __init__(
        self,
        hub: JarvisTools,
        tool: llm.Tool,
        kinds: frozenset[str],
        serving: Mapping[str, Sequence[str]],
    ) -> None:
        """Wrap the intent tool, whose intent acts on these domains;
        `serving` names the offered tools that act on each domain."""
        super().__init__(hub, tool)
        self.kinds = kinds
        self.serving = serving
        self.intent_type = intent_type_of(innermost(tool)) or tool.name
        if self.intent_type == INTENT_SET_TEMPERATURE:
            self.parameters = unrequired(tool.parameters, ATTR_TEMPERATURE)

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """HA's result, with what a step did in words; or which device is
        meant, asked; or why nothing matched."""
        intent_type = self.intent_type
        language = llm_context.language or hass.config.language
        matching = KindMatching(
            intent_type, set(self.kinds), _FEATURES_INSIDE.get(intent_type)
        )
        args = tool_input.tool_args
        if elsewhere := self._named_elsewhere(user_text()):
            return elsewhere
        slots = {key: {"value": value} for key, value in args.items()}
        if self.kinds and isinstance(args.get("name"), str):
            repaired = repair_targets(
                hass,
                matching,
                slots,
                assistant=llm_context.assistant,
                language=language,
                request=user_text(),
            )
            if isinstance(repaired, Answer) or isinstance(
                repaired := _one_of(hass, repaired, language), Answer
            ):
                return repaired.result
            args = {key: slot["value"] for key, slot in repaired.items()}
        elif guessed := unknown_places(hass, slots):
            # A place the home lacks, with no name: 0.5B's area "..." for
            # "turn up the heat".
            args = {key: value for key, value in args.items() if key not in guessed}
        temperature = None
        if intent_type == INTENT_SET_TEMPERATURE:
            temperature = meant_temperature(
                hass, matching, args, llm_context.assistant, user_text(), language
            )
            if isinstance(temperature, Answer):
                return temperature.result
            if temperature is not None:
                args = args | {ATTR_TEMPERATURE: temperature}
            elif ATTR_TEMPERATURE not in args:
                return level_unsaid(ATTR_TEMPERATURE)
        tool_input = llm.ToolInput(
            tool_input.tool_name, args, tool_input.id, tool_input.external
        )
        result = await called_in_words(self, hass, tool_input, llm_context, repair=True)
        if temperature is not None:
            # The model's reply would give the temperature it guessed.
            unit = hass.config.units.temperature_unit
            level = f"{temperature:g} {unit}"
            return with_did_phrase(
                hass, result, language, {}, service=TEMPERATURE_SET, level=level
            )
        step = str(args.get("volume_step"))
        if (service := _STEPPED.get((intent_type, step))) is None:
            return result
        return with_did_phrase(hass, result, language, {}, service=service)

    def _named_elsewhere(self, request: str | None) -> JsonObjectType | None:
        """Nothing done, where the request names only kinds of device the
        intent does not act on: 0.5B sent "make the kitchen lights warmer"
        to the thermostat's intent, and was asked which thermostat."""
        named = kinds_named(request or "")
        if not self.kinds or not named or named & self.kinds:
            return None
        kinds = " and ".join(sorted(named))
        instead = serving_words(self.serving, named, self.name) or ""
        return {
            "error": WRONG_TOOL,
            "error_text": f"Nothing was done: the request is about {kinds}, "
            f"which {self.name} does not act on. {instead}".rstrip(),
        }


def serving_words(
    serving: Mapping[str, Sequence[str]], kinds: Iterable[str], called: str
) -> str | None:
    """ "Use <tools> for it.", of the offered tools but the one called that
    act on these kinds of device; None where none does."""
    tools = [
        name
        for kind in sorted(kinds)
        for name in serving.get(kind, ())
        if name != called
    ]
    return f"Use {' or '.join(dict.fromkeys(tools))} for it." if tools else None


def _one_of(hass: HomeAssistant, slots: Slots, language: str) -> Slots | Answer:
    """The slots for the one device meant, or which one, asked, where the
    repair found several the user said all of (`ENTITIES`): these intents
    act on one, their own way."""
    if ENTITIES not in slots:
        return slots
    found = [hass.states.get(entity_id) for entity_id in slots[ENTITIES]["value"]]
    states = [state for state in found if state is not None]
    if len(states) != 1:
        return which(hass, states, language)
    rest = {key: slot for key, slot in slots.items() if key not in (ENTITIES, "domain")}
    return rest | {"name": {"value": states[0].name}}


# The features HA's handlers match by inside their own matching, which are
# not on the handler: a which-question lists only the devices that can.
_FEATURES_INSIDE: dict[str, int] = {
    INTENT_SET_TEMPERATURE: ClimateEntityFeature.TARGET_TEMPERATURE,
    INTENT_SET_VOLUME_RELATIVE: MediaPlayerEntityFeature.VOLUME_SET,
    INTENT_MEDIA_SEARCH_AND_PLAY: MediaPlayerEntityFeature.SEARCH_MEDIA
    | MediaPlayerEntityFeature.PLAY_MEDIA,
}


# What HA's relative volume intent does by its step: its handler turns the
# players' entities, with no service call to tell what it did.
_STEPPED = {
    ("HassSetVolumeRelative", "up"): "volume_up",
    ("HassSetVolumeRelative", "down"): "volume_down",
}


async def called_in_words(
    tool: WrappingTool,
    hass: HomeAssistant,
    tool_input: llm.ToolInput,
    llm_context: llm.LLMContext,
    *,
    repair: bool,
) -> JsonObjectType:
    """The wrapped tool's result; with `repair`, HA's failed match in words
    (`match_failure`)."""
    try:
        return await tool.wrapped.async_call(hass, tool_input, llm_context)
    except intent.MatchFailedError as err:
        if not repair:
            raise
        if (asked := _which_of_several(hass, err, llm_context)) is not None:
            return asked.result
        return match_failure(hass, err)


def _which_of_several(
    hass: HomeAssistant, err: intent.MatchFailedError, llm_context: llm.LLMContext
) -> Answer | None:
    """Which device is meant, asked, where an intent that acts on one found
    a few ("set the thermostat to 21" in a home with three), or none in the
    area or floor said, where a few of its kind are elsewhere ("set the
    bedroom to 22" with no thermostat there: 0.5B repeated the call)."""
    match err.result.no_match_reason:
        case intent.MatchFailedReason.MULTIPLE_TARGETS:
            wanted = replace(err.constraints, single_target=False)
        case intent.MatchFailedReason.AREA | intent.MatchFailedReason.FLOOR if (
            err.constraints.single_target
        ):
            wanted = replace(
                err.constraints, area_name=None, floor_name=None, single_target=False
            )
        case _:
            return None
    several = intent.async_match_targets(hass, wanted).states
    if not 1 < len(several) <= MAX_CHOICES:
        return None
    return which(hass, several, llm_context.language or hass.config.language)


def match_failure(hass: HomeAssistant, err: intent.MatchFailedError) -> JsonObjectType:
    """HA's failed match in words a model can use: its own text is the repr
    of the match, after which 0.5B repeated the call."""
    wanted = err.constraints
    kind = " or ".join(sorted(wanted.domains)) if wanted.domains else "device"
    named = f" called '{wanted.name}'" if wanted.name else ""
    where = "".join(
        f" {on} {label} '{value}'"
        for on, label, value in (
            ("in", "area", wanted.area_name),
            ("on", "floor", wanted.floor_name),
        )
        if value
    )
    match err.result.no_match_reason:
        case intent.MatchFailedReason.INVALID_AREA:
            text = f"There is no area '{wanted.area_name}'."
        case intent.MatchFailedReason.INVALID_FLOOR:
            text = f"There is no floor '{wanted.floor_name}'."
        case intent.MatchFailedReason.DUPLICATE_NAME:
            text = f"Several devices are called '{wanted.name}': give its area too."
        case intent.MatchFailedReason.MULTIPLE_TARGETS:
            text = f"Several {kind} devices fit{where}: name one."
        case intent.MatchFailedReason.STATE:
            states = " or ".join(sorted(wanted.states or ()))
            text = f"No {kind}{named}{where} is {states}."
        case intent.MatchFailedReason.FEATURE:
            text = f"No {kind}{named}{where} can do that."
        case intent.MatchFailedReason.ASSISTANT:
            text = f"No {kind}{named}{where} is exposed to the assistant."
        case _:
            text = f"No {kind}{named}{where} was found."
    if wanted.domains:
        exposed = intent.async_match_targets(
            hass,
            intent.MatchTargetsConstraints(
                domains=wanted.domains, assistant=wanted.assistant
            ),
        ).states
        # A few to pick from; of many, the model would pick a wrong one.
        names = sorted({state.name for state in exposed})
        if 0 < len(names) <= MAX_CHOICES:
            text += f" The {kind} devices are: {', '.join(names)}."
    return {"error": NO_MATCH, "error_text": f"Nothing was done. {text}"}
