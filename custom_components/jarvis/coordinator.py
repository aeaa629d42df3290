"""The LLM server's health: a coordinator that checks it and keeps a repair issue."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import EVENT_HOMEASSISTANT_STOP
from homeassistant.core import CALLBACK_TYPE, Event, HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryAuthFailed
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator

from .const import CONF_URL, CONNECT_TIMEOUT, DOMAIN, LOGGER
from .engine.llm.base import LLMAuthError, LLMClient, LLMError
from .engine.redact import public_url
from .telemetry import TurnRecord, turn_signal

SERVER_CHECK_INTERVAL = timedelta(seconds=60)
ISSUE_SERVER_UNREACHABLE = "server_unreachable"
# Placeholder for the repair issue when a reply, not the periodic check, failed.
TURN_FAILED = "a reply could not get an answer from the model"


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """Whether the LLM server answers, and if not, why."""

    reachable: bool
    error: str | None = None


class ServerMonitor(DataUpdateCoordinator[ServerStatus]):
    """Checks the LLM server by listing its models; keeps a repair issue in step.

    A turn that failed on the server marks it unreachable at once; one the
    model answered marks it reachable again without waiting for the next check.
    """

    config_entry: ConfigEntry

    def __init__(
        self, hass: HomeAssistant, entry: ConfigEntry, client: LLMClient
    ) -> None:
        """Start as reachable: setting up the entry just listed the models."""
        super().__init__(
            hass,
            LOGGER,
            config_entry=entry,
            name=f"{DOMAIN} server",
            update_interval=SERVER_CHECK_INTERVAL,
            always_update=False,
        )
        self._client = client
        self.data = ServerStatus(reachable=True)
        # User and password never belong in a repair message.
        self._url = public_url(entry.data[CONF_URL])
        self._issue_id = f"{ISSUE_SERVER_UNREACHABLE}_{entry.entry_id}"
        # Home Assistant stops an entry's coordinator only when the entry
        # unloads, which stopping does not do: left alone, the check would run
        # on after the shared HTTP session closed.
        self._unsub_stop: CALLBACK_TYPE | None = hass.bus.async_listen_once(
            EVENT_HOMEASSISTANT_STOP, self._async_hass_stopping
        )
        # Every turn of the entry's agents is a check of the server too.
        self._unsub_turns = async_dispatcher_connect(
            hass, turn_signal(entry.entry_id), self._async_turn_ended
        )

    async def _async_update_data(self) -> ServerStatus:
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                models = await self._client.list_models()
        except LLMAuthError as err:
            # Reachable, but the key is wrong: that is re-authentication's job.
            raise ConfigEntryAuthFailed(
                translation_domain=DOMAIN, translation_key="invalid_auth"
            ) from err
        except (LLMError, TimeoutError) as err:
            status = ServerStatus(False, str(err) or type(err).__name__)
        else:
            status = (
                ServerStatus(True)
                if models
                else ServerStatus(False, "the server lists no models")
            )
        self._async_track(status)
        return status

    @callback
    def _async_turn_ended(self, _: str, record: TurnRecord) -> None:
        """Take a turn's outcome as a check of the server."""
        if record.ended == "llm_error":
            status = ServerStatus(False, TURN_FAILED)
        elif record.llm_calls and not self.data.reachable:
            status = ServerStatus(True)
        else:
            return
        self._async_track(status)
        self.async_set_updated_data(status)

    async def async_shutdown(self) -> None:
        """An unloaded entry leaves no repair issue behind."""
        self._unsub_turns()
        if self._unsub_stop is not None:
            self._unsub_stop()
            self._unsub_stop = None
        await super().async_shutdown()
        ir.async_delete_issue(self.hass, DOMAIN, self._issue_id)

    async def _async_hass_stopping(self, _event: Event) -> None:
        """Stop checking; the repair issue stays as the last check left it."""
        self._unsub_stop = None  # a listener fired once is gone already
        await super().async_shutdown()

    @callback
    def _async_track(self, status: ServerStatus) -> None:
        """Log changes once and keep the repair issue in step with `status`."""
        was_reachable = self.data.reachable
        if status.reachable:
            if not was_reachable:
                LOGGER.info("The LLM server at %s answers again", self._url)
                ir.async_delete_issue(self.hass, DOMAIN, self._issue_id)
            return
        if was_reachable:
            LOGGER.warning(
                "The LLM server at %s is unreachable: %s", self._url, status.error
            )
        ir.async_create_issue(
            self.hass,
            DOMAIN,
            self._issue_id,
            is_fixable=False,
            severity=ir.IssueSeverity.ERROR,
            translation_key=ISSUE_SERVER_UNREACHABLE,
            translation_placeholders={
                "title": self.config_entry.title,
                "url": self._url,
                "error": status.error or "",
            },
        )
