"""Jarvis's files in HA's storage, checked when they are read.

HA's `Store` sets a file of broken JSON aside by itself. A file of valid JSON
in the wrong shape (edited by hand, written by another version) would instead
stop the integration from loading or break every turn: it is set aside too,
Jarvis starts empty, and a repair issue says where the old data went.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from homeassistant.core import HomeAssistant
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.storage import Store

from .const import DOMAIN, LOGGER

# What a wrong shape raises when it is read.
SHAPE_ERRORS = (TypeError, ValueError, KeyError, AttributeError)


class CheckedStore:
    """A `Store` whose data must pass `check` (which raises on a wrong shape)."""

    def __init__(
        self,
        hass: HomeAssistant,
        version: int,
        key: str,
        check: Callable[[Any], object],
        *,
        private: bool = False,
    ) -> None:
        """Like `Store`, with atomic writes."""
        self.hass = hass
        self.key = key
        self._check = check
        self._store: Store[Any] = Store(
            hass, version, key, private=private, atomic_writes=True
        )

    async def async_load(self) -> Any:
        """The stored data, or None when there is none or it has a wrong shape."""
        data = await self._store.async_load()
        if data is None:
            return None
        try:
            self._check(data)
        except SHAPE_ERRORS as err:
            await self._async_set_aside(data, err)
            return None
        return data

    async def async_save(self, data: Any) -> None:
        """Save atomically."""
        await self._store.async_save(data)

    async def _async_set_aside(self, data: Any, err: Exception) -> None:
        aside = f"{self.key}.bad"
        await Store[Any](self.hass, 1, aside, private=True).async_save(data)
        LOGGER.error(
            "%s had data of the wrong shape (%s); it was moved to .storage/%s "
            "and Jarvis starts with none",
            self.key,
            type(err).__name__,
            aside,
        )
        ir.async_create_issue(
            self.hass,
            DOMAIN,
            f"bad_store_{self.key}",
            is_fixable=False,
            severity=ir.IssueSeverity.ERROR,
            translation_key="bad_store",
            translation_placeholders={
                "store": f".storage/{self.key}",
                "aside": f".storage/{aside}",
            },
        )
