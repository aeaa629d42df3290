"""The weather forecast: HA's Assist tools tell only the weather now, and
"will it rain tomorrow?" is among the first things people ask a speaker."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from homeassistant.components.homeassistant.exposed_entities import (
    async_should_expose,
)
from homeassistant.components.weather import (
    ATTR_FORECAST_CONDITION,
    ATTR_FORECAST_PRECIPITATION,
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
from homeassistant.util.json import JsonObjectType
import voluptuous as vol

from .builtin import JarvisTool
from .services import ToolError

# Days a daily forecast usually holds.
MAX_DAYS = 7
# What a forecast day tells, as the model reads it.
_TOLD = {
    ATTR_FORECAST_CONDITION: "condition",
    ATTR_FORECAST_TEMP: "high",
    ATTR_FORECAST_TEMP_LOW: "low",
    ATTR_FORECAST_PRECIPITATION_PROBABILITY: "chance_of_rain_percent",
    ATTR_FORECAST_PRECIPITATION: "precipitation",
}


class WeatherForecastTool(JarvisTool):
    """Each day's forecast of the home's weather, from today."""

    name = "weather_forecast"
    description = (
        "The weather forecast of the home for the coming days: each day's "
        "condition, high and low temperature and chance of rain. For "
        "tomorrow, the weekend or later this week; the weather now is in the "
        "live context."
    )
    parameters = vol.Schema(
        {
            vol.Optional("days", description="Days from today, 1 to 7"): vol.All(
                vol.Coerce(int), vol.Range(min=1, max=MAX_DAYS)
            )
        }
    )

    async def async_call(
        self,
        hass: HomeAssistant,
        tool_input: llm.ToolInput,
        llm_context: llm.LLMContext,
    ) -> JsonObjectType:
        """The daily forecast of the first exposed weather entity that has
        one, for the days asked (a week where not said)."""
        days = int(tool_input.tool_args.get("days") or MAX_DAYS)
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
        unit = weather.attributes.get("temperature_unit", "")
        return {
            "weather": weather.name,
            "temperature_unit": unit,
            "days": [
                _day(entry) for entry in forecast[:days] if isinstance(entry, dict)
            ],
        }


def _forecasts_daily(state: State) -> bool:
    features = state.attributes.get(ATTR_SUPPORTED_FEATURES) or 0
    return bool(features & WeatherEntityFeature.FORECAST_DAILY)


def _day(entry: dict[str, Any]) -> JsonObjectType:
    """One day of the forecast, dated in the home's time zone."""
    day: dict[str, Any] = {}
    when = entry.get(ATTR_FORECAST_TIME)
    if isinstance(when, str) and (parsed := dt_util.parse_datetime(when)):
        local: datetime = dt_util.as_local(parsed)
        day |= {"date": local.date().isoformat(), "weekday": local.strftime("%A")}
    return day | {
        told: entry[key] for key, told in _TOLD.items() if entry.get(key) is not None
    }
