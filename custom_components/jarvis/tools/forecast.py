"""The weather forecast: HA's Assist tools tell only the weather now, and
"will it rain tomorrow?" is among the first things people ask a speaker."""

from __future__ import annotations

from datetime import date
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.components.weather import (
    ATTR_FORECAST_CONDITION,
    ATTR_FORECAST_PRECIPITATION_PROBABILITY,
    ATTR_FORECAST_TEMP,
    ATTR_FORECAST_TEMP_LOW,
    ATTR_FORECAST_TIME,
    SERVICE_GET_FORECASTS,
)
from homeassistant.components.weather.const import (
    DOMAIN as WEATHER_DOMAIN,
    WeatherEntityFeature,
)
from homeassistant.const import ATTR_ENTITY_ID, ATTR_SUPPORTED_FEATURES
from homeassistant.core import HomeAssistant, State
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm, translation
from homeassistant.util import dt as dt_util
from homeassistant.util.json import JsonObjectType, JsonValueType

from ..const import ASSISTANT
from ..engine.lang import language_pack
from ..engine.phrases import FINAL_REPLY, NO_FORECAST, FinalReply, phrase
from ..engine.results import NO_MATCH
from ..engine.text import mentions
from ..safety.holds import user_text
from .builtin import JarvisTool
from .services import ToolError

# Days told, from today: enough for "this weekend", short for a small model.
DAYS = 5
# What a forecast day tells, as the model reads it: the key, its label and
# what follows the value.
_TOLD = (
    (ATTR_FORECAST_CONDITION, "", ""),
    (ATTR_FORECAST_TEMP, "high", " {unit}"),
    (ATTR_FORECAST_TEMP_LOW, "low", " {unit}"),
    (ATTR_FORECAST_PRECIPITATION_PROBABILITY, "chance of rain", "%"),
)
_NAMED_DAYS = {0: "Today", 1: "Tomorrow"}


class WeatherForecastTool(JarvisTool):
    """Each day's forecast of the home's weather, from today."""

    name = "weather_forecast"
    description = "The weather forecast: today, tomorrow and the days after."

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """The daily forecast of the first exposed weather entity that has
        one, from today, each day in a line (`DAYS` of them): 0.5B asked for
        one day for "will it rain tomorrow?", and got today's."""
        assistant = llm_context.assistant or ASSISTANT
        weather = next(
            (
                state
                for state in hass.states.async_all(WEATHER_DOMAIN)
                if _forecasts_daily(state)
                and async_should_expose(hass, assistant, state.entity_id)
            ),
            None,
        )
        language = llm_context.language or hass.config.language
        if weather is None:
            # HA exposes no weather to Assist by default: say how to.
            return {
                "error": NO_MATCH,
                "error_text": "No weather with a daily forecast is exposed.",
                FINAL_REPLY: FinalReply(phrase(NO_FORECAST, language)),
            }
        try:
            response = await hass.services.async_call(
                WEATHER_DOMAIN,
                SERVICE_GET_FORECASTS,
                {ATTR_ENTITY_ID: weather.entity_id, "type": "daily"},
                blocking=True,
                return_response=True,
            )
        except HomeAssistantError as err:
            raise ToolError(f"The forecast could not be read: {err}") from err
        found = (response or {}).get(weather.entity_id) or {}
        forecast = found.get("forecast") if isinstance(found, dict) else None
        if not isinstance(forecast, list):
            raise ToolError("The weather gave no forecast.")
        unit = str(weather.attributes.get("temperature_unit", ""))
        today = dt_util.now().date()
        said = [
            ahead
            for ahead, words in language_pack(language).days_said.items()
            if mentions(user_text(), words)
        ]
        dated = [
            (entry, _date(entry))
            for entry in forecast[:DAYS]
            if isinstance(entry, dict)
        ]
        # The one day the request names ("will it rain tomorrow?"): given the
        # week, 0.5B read out another day's line; given that day's, it said
        # "sunny" of a rainy one. Jarvis says that day's forecast itself.
        asked = [
            (entry, day)
            for entry, day in dated
            if len(said) == 1 and day is not None and (day - today).days == said[0]
        ]
        lines: list[JsonValueType] = [
            _line(entry, day, today, unit) for entry, day in asked or dated
        ]
        result: JsonObjectType = {"weather": weather.name, "forecast": lines}
        if len(asked) == 1:
            spoken = await _spoken(hass, language, asked[0][0], said[0], unit)
            result[FINAL_REPLY] = FinalReply(spoken)
        return result


def _forecasts_daily(state: State) -> bool:
    features = state.attributes.get(ATTR_SUPPORTED_FEATURES) or 0
    return bool(features & WeatherEntityFeature.FORECAST_DAILY)


def _date(entry: dict[str, Any]) -> date | None:
    """The day a forecast entry is for, in the home's time zone."""
    when = entry.get(ATTR_FORECAST_TIME)
    parsed = dt_util.parse_datetime(when) if isinstance(when, str) else None
    return None if parsed is None else dt_util.as_local(parsed).date()


def _line(entry: dict[str, Any], day: date | None, today: date, unit: str) -> str:
    """A day of the forecast in a line a small model can say again:
    "Tomorrow, Sunday 2026-11-29: rainy, high 12 °C, low 5 °C, chance of
    rain 80%"."""
    said = "Some day"
    if day is not None:
        dated = f"{day.strftime('%A')} {day.isoformat()}"
        named = _NAMED_DAYS.get((day - today).days)
        said = f"{named}, {dated}" if named else dated
    told = [
        f"{label} {entry[key]}{suffix.format(unit=unit)}".strip()
        for key, label, suffix in _TOLD
        if entry.get(key) is not None
    ]
    return f"{said}: {', '.join(told)}"


async def _spoken(
    hass: HomeAssistant, language: str, entry: dict[str, Any], ahead: int, unit: str
) -> str:
    """The day's forecast in Jarvis's words and the user's language, its
    condition as HA's own translations name it."""
    pack = language_pack(language)
    names = await translation.async_get_translations(
        hass, language, "entity_component", {WEATHER_DOMAIN}
    )
    condition = str(entry.get(ATTR_FORECAST_CONDITION) or "")
    named = names.get(f"component.weather.entity_component._.state.{condition}")
    day = pack.days_said[ahead][0]
    said = pack.forecast_day.format(
        day=day[:1].upper() + day[1:],
        condition=(named or condition).lower(),
        low=_degrees(entry.get(ATTR_FORECAST_TEMP_LOW), unit),
        high=_degrees(entry.get(ATTR_FORECAST_TEMP), unit),
    )
    rain = entry.get(ATTR_FORECAST_PRECIPITATION_PROBABILITY)
    if isinstance(rain, int | float):
        said = f"{said} {pack.forecast_rain.format(rain=f'{rain:g}')}"
    return said


def _degrees(value: Any, unit: str) -> str:
    return f"{value:g} {unit}" if isinstance(value, int | float) else "?"
