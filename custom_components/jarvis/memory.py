"""Jarvis's long-term memory in Home Assistant: storage and services."""

from __future__ import annotations

from homeassistant.core import (
    HomeAssistant,
    ServiceCall,
    ServiceResponse,
    SupportsResponse,
    callback,
)
from homeassistant.exceptions import ServiceValidationError, Unauthorized
from homeassistant.helpers import config_validation as cv
from homeassistant.util.hass_dict import HassKey
import voluptuous as vol

from .const import DOMAIN
from .engine.memory import LongTermMemory, parse_facts
from .stores import CheckedStore

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
        store = CheckedStore(
            hass, STORAGE_VERSION, STORAGE_KEY, parse_facts, private=True
        )
        memory = hass.data[DATA_MEMORY] = LongTermMemory(store)
    return memory


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """jarvis.remember, jarvis.forget and jarvis.clear_memory."""

    async def user_of(call: ServiceCall) -> str:
        """Whose memory a call acts on: the caller's own; only an admin may name
        another user or the household. A call with no user (an automation, a
        script) acts on the household's unless it names one."""
        named = call.data.get(ATTR_USER_ID)
        if (caller_id := call.context.user_id) is None:
            return str(named or HOUSEHOLD)
        if named is None or named == caller_id:
            return caller_id
        caller = await hass.auth.async_get_user(caller_id)
        if caller is None or not caller.is_admin:
            raise Unauthorized(context=call.context)
        return str(named)

    def text_of(call: ServiceCall) -> str:
        # A blank fact would be stored (or match everything when forgetting).
        if not (text := str(call.data[ATTR_TEXT]).strip()):
            raise ServiceValidationError(
                translation_domain=DOMAIN, translation_key="empty_text"
            )
        return text

    async def remember(call: ServiceCall) -> ServiceResponse:
        user = await user_of(call)
        fact = await async_get_memory(hass).remember(user, text_of(call))
        return {"remembered": fact.text}

    async def forget(call: ServiceCall) -> ServiceResponse:
        user = await user_of(call)
        removed = await async_get_memory(hass).forget(user, text_of(call))
        return {"forgotten": removed}

    async def clear_memory(call: ServiceCall) -> ServiceResponse:
        return {"forgotten": await async_get_memory(hass).clear(await user_of(call))}

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
