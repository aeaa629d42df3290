"""Intent tools whose failed match is told in words a model can use: HA's
own text is the repr of the match, after which 0.5B repeated the call."""

from __future__ import annotations

from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent, llm
from homeassistant.util.json import JsonObjectType

from ..engine.results import NO_MATCH
from .builtin import WrappingTool
from .deeds import with_did_phrase
from .meant import MAX_CHOICES


class MatchInWordsTool(WrappingTool):
    """An intent tool of HA's that matches targets its own way (the volume
    intents), whose failed match is told in words (`match_failure`):
    HA's text, the repr of the match, left 0.5B repeating the call."""

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """HA's result, with what a step did in words; or why nothing
        matched."""
        result = await called_in_words(self, hass, tool_input, llm_context, repair=True)
        intent_type = str(getattr(self.wrapped, "intent_type", self.wrapped.name))
        step = str(tool_input.tool_args.get("volume_step"))
        if (service := _STEPPED.get((intent_type, step))) is None:
            return result
        language = llm_context.language or hass.config.language
        return with_did_phrase(hass, result, language, {}, service=service)


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
        return match_failure(hass, err)


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
