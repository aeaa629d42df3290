"""Jarvis's long-term memory in Home Assistant: storage and services."""

from __future__ import annotations

from homeassistant.core import (
    HomeAssistant,
    ServiceCall,
    ServiceResponse,
    SupportsResponse,
    callback,
)
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers.storage import Store
from homeassistant.util.hass_dict import HassKey
import voluptuous as vol

from .const import DOMAIN
from .engine.memory import LongTermMemory

DATA_MEMORY: HassKey[LongTermMemory] = HassKey(f"{DOMAIN}_memory")
STORAGE_KEY = f"{DOMAIN}.memory"
STORAGE_VERSION = 1
# Facts said through a satellite or an automation belong to the household.
HOUSEHOLD = "household"

ATTR_TEXT = "text"
ATTR_USER_ID = "user_id"


@callback
def async_get_memory(hass: HomeAssistant) -> LongTermMemory:
    """The one memory of this Home Assistant, persisted atomically."""
    if (memory := hass.data.get(DATA_MEMORY)) is None:
        store: Store[dict[str, object]] = Store(
            hass, STORAGE_VERSION, STORAGE_KEY, private=True, atomic_writes=True
        )
        memory = hass.data[DATA_MEMORY] = LongTermMemory(store)
    return memory


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """jarvis.remember, jarvis.forget and jarvis.clear_memory."""

    def user_of(call: ServiceCall) -> str:
        return str(call.data.get(ATTR_USER_ID) or HOUSEHOLD)

    def text_of(call: ServiceCall) -> str:
        # A blank fact would be stored (or match everything when forgetting).
        if not (text := str(call.data[ATTR_TEXT]).strip()):
            raise ServiceValidationError(
                translation_domain=DOMAIN, translation_key="empty_text"
            )
        return text

    async def remember(call: ServiceCall) -> ServiceResponse:
        fact = await async_get_memory(hass).remember(user_of(call), text_of(call))
        return {"remembered": fact.text}

    async def forget(call: ServiceCall) -> ServiceResponse:
        removed = await async_get_memory(hass).forget(user_of(call), text_of(call))
        return {"forgotten": removed}

    async def clear_memory(call: ServiceCall) -> ServiceResponse:
        user = call.data.get(ATTR_USER_ID)
        return {"forgotten": await async_get_memory(hass).clear(user)}

    text_schema = vol.Schema(
        {vol.Required(ATTR_TEXT): cv.string, vol.Optional(ATTR_USER_ID): cv.string}
    )
    hass.services.async_register(
        DOMAIN, "remember", remember, text_schema, SupportsResponse.OPTIONAL
    )
    hass.services.async_register(
        DOMAIN, "forget", forget, text_schema, SupportsResponse.OPTIONAL
    )
    hass.services.async_register(
        DOMAIN,
        "clear_memory",
        clear_memory,
        vol.Schema({vol.Optional(ATTR_USER_ID): cv.string}),
        SupportsResponse.OPTIONAL,
    )
