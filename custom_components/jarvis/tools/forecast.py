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
from homeassistant.helpers import llm
from homeassistant.util import dt as dt_util
from homeassistant.util.json import JsonObjectType, JsonValueType

from ..engine.lang import language_pack
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
        assistant = llm_context.assistant or "conversation"
        weather = next(
            (
                state
                for state in hass.states.async_all(WEATHER_DOMAIN)
                if _forecasts_daily(state)
                and async_should_expose(hass, assistant, state.entity_id)
            ),
            None,
        )
        if weather is None:
            raise ToolError("No weather with a daily forecast is exposed.")
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
        language = llm_context.language or hass.config.language
        said = [
            ahead
            for ahead, words in language_pack(language).days_said.items()
            if mentions(user_text(), words)
        ]
        days = [
            _day(entry, today, unit)
            for entry in forecast[:DAYS]
            if isinstance(entry, dict)
        ]
        # The one day the request names ("will it rain tomorrow?"): given the
        # week, 0.5B read out another day's line.
        asked = [line for ahead, line in days if len(said) == 1 and ahead == said[0]]
        lines: list[JsonValueType] = list(asked or [line for _, line in days])
        return {"weather": weather.name, "forecast": lines}


def _forecasts_daily(state: State) -> bool:
    features = state.attributes.get(ATTR_SUPPORTED_FEATURES) or 0
    return bool(features & WeatherEntityFeature.FORECAST_DAILY)


def _day(entry: dict[str, Any], today: date, unit: str) -> tuple[int | None, str]:
    """How many days from today a day of the forecast is, and the day in a
    line a small model can say again: "Tomorrow, Sunday 2026-11-29: rainy,
    high 12 °C, low 5 °C, chance of rain 80%"."""
    when = entry.get(ATTR_FORECAST_TIME)
    parsed = dt_util.parse_datetime(when) if isinstance(when, str) else None
    ahead, day = None, "Some day"
    if parsed is not None:
        local = dt_util.as_local(parsed).date()
        ahead = (local - today).days
        dated = f"{local.strftime('%A')} {local.isoformat()}"
        named = _NAMED_DAYS.get(ahead)
        day = f"{named}, {dated}" if named else dated
    told = [
        f"{label} {entry[key]}{suffix.format(unit=unit)}".strip()
        for key, label, suffix in _TOLD
        if entry.get(key) is not None
    ]
    return ahead, f"{day}: {', '.join(told)}"
