"""Delayed and scheduled service calls that survive a restart.

Each action is stored (HA's `Store`) before it is armed. On start-up, actions
still ahead are re-armed; ones missed while Home Assistant was down run if they
are at most `MISSED_GRACE` late, otherwise they are dropped and reported in a
persistent notification.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
import re
from typing import Any

from homeassistant.components import persistent_notification
from homeassistant.const import EVENT_HOMEASSISTANT_STOP
from homeassistant.core import CALLBACK_TYPE, Context, Event, HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers.event import async_track_point_in_utc_time
from homeassistant.util import dt as dt_util
from homeassistant.util.ulid import ulid_now

from ..const import DOMAIN
from ..engine.redact import redacting_logger
from ..stores import CheckedStore
from .services import ServiceAction, ToolError, async_run

_LOGGER = redacting_logger(__name__)

STORAGE_KEY = f"{DOMAIN}.scheduled_actions"
STORAGE_VERSION = 1
MISSED_GRACE = timedelta(minutes=15)
MAX_AHEAD = timedelta(days=30)
_CLOCK = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Scheduled:
    """A stored action and when it runs (UTC)."""

    id: str
    when: datetime
    action: ServiceAction
    description: str

    def as_dict(self) -> dict[str, Any]:
        """For storage."""
        return {
            "id": self.id,
            "when": self.when.isoformat(),
            "action": self.action.as_dict(),
            "description": self.description,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scheduled:
        """From storage."""
        return cls(
            data["id"],
            dt_util.as_utc(datetime.fromisoformat(data["when"])),
            ServiceAction.from_dict(data["action"]),
            data["description"],
        )

    def summary(self) -> dict[str, Any]:
        """For the model: what, and when in local time."""
        return {
            "id": self.id,
            "action": self.description,
            "at": dt_util.as_local(self.when).strftime("%Y-%m-%d %H:%M"),
        }


def when_from_args(args: Mapping[str, Any]) -> datetime:
    """The UTC time for `in_minutes`, or `at` (HH:MM or a date and time) and `day`."""
    now = dt_util.now()
    if (minutes := args.get("in_minutes")) is not None:
        try:
            when = now + timedelta(minutes=float(minutes))
        except (OverflowError, ValueError) as err:
            raise ToolError("in_minutes must be a number of minutes.") from err
    elif at := args.get("at"):
        when = _local_time(str(at).strip(), str(args.get("day") or "").strip(), now)
    else:
        raise ToolError("Give in_minutes, or at (HH:MM) and optionally day.")
    if when <= now:
        raise ToolError(f"{when:%Y-%m-%d %H:%M} is in the past.")
    if when - now > MAX_AHEAD:
        raise ToolError("Actions can be scheduled at most 30 days ahead.")
    return dt_util.as_utc(when)


def _local_time(at: str, day: str, now: datetime) -> datetime:
    if (parsed := dt_util.parse_datetime(at)) is not None:
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=now.tzinfo)
    if not (match := _CLOCK.match(at)):
        raise ToolError(f"Cannot read the time '{at}'; use HH:MM (24-hour).")
    hour, minute = int(match[1]), int(match[2] or 0)
    if match[3]:
        hour = hour % 12 + (12 if match[3].lower() == "pm" else 0)
    try:
        clock = time(hour, minute)
    except ValueError as err:
        raise ToolError(f"Cannot read the time '{at}'.") from err
    on = _day(day, now.date())
    when = datetime.combine(on or now.date(), clock, tzinfo=now.tzinfo)
    # "at 7" with no day means the next 7 o'clock.
    return when + timedelta(days=1) if on is None and when <= now else when


def _day(day: str, today: date) -> date | None:
    match day.casefold():
        case "":
            return None
        case "today":
            return today
        case "tomorrow":
            return today + timedelta(days=1)
    if (parsed := dt_util.parse_date(day)) is None:
        raise ToolError(
            f"Cannot read the day '{day}'; use today, tomorrow or YYYY-MM-DD."
        )
    return parsed


def _parse(data: Any) -> list[Scheduled]:
    """Stored actions; raises on a wrong shape."""
    if not isinstance(data, list):
        raise TypeError("scheduled actions must be a list")
    return [Scheduled.from_dict(item) for item in data]


class Scheduler:
    """Stored actions, each armed with a timer."""

    def __init__(self, hass: HomeAssistant) -> None:
        """Nothing loaded yet."""
        self.hass = hass
        self._store = CheckedStore(hass, STORAGE_VERSION, STORAGE_KEY, _parse)
        self._items: dict[str, Scheduled] = {}
        self._timers: dict[str, CALLBACK_TYPE] = {}

    async def async_start(self) -> None:
        """Load stored actions: arm future ones, run or report missed ones."""
        stored = _parse(await self._store.async_load() or [])
        now = dt_util.utcnow()
        missed: list[Scheduled] = []
        for item in stored:
            if item.when > now:
                self._arm(item)
            elif now - item.when <= MISSED_GRACE:
                self._items[item.id] = item
                self._start(item.id)
            else:
                missed.append(item)
        if missed:
            await self._save()
            self._report_missed(missed)
        self.hass.bus.async_listen_once(EVENT_HOMEASSISTANT_STOP, self._async_stop)

    def pending(self) -> list[Scheduled]:
        """Pending actions, soonest first."""
        return sorted(self._items.values(), key=lambda item: item.when)

    async def async_add(self, action: ServiceAction, when: datetime) -> Scheduled:
        """Store and arm an action."""
        item = Scheduled(ulid_now(), when, action, action.describe(self.hass))
        # Saved before it is armed: an action that runs is never one lost on a crash.
        self._items[item.id] = item
        await self._save()
        self._arm(item)
        return item

    async def async_cancel(self, item_id: str) -> Scheduled | None:
        """Forget an action; None if there is none with that id."""
        if (item := self._items.pop(item_id, None)) is None:
            return None
        if cancel := self._timers.pop(item_id, None):
            cancel()
        await self._save()
        return item

    def _arm(self, item: Scheduled) -> None:
        self._items[item.id] = item

        @callback
        def fire(_: datetime) -> None:
            self._timers.pop(item.id, None)
            self._start(item.id)

        self._timers[item.id] = async_track_point_in_utc_time(
            self.hass, fire, item.when
        )

    def _start(self, item_id: str) -> None:
        self.hass.async_create_background_task(
            self._async_fire(item_id), f"{DOMAIN} scheduled action {item_id}"
        )

    async def _async_fire(self, item_id: str) -> None:
        if (item := self._items.pop(item_id, None)) is None:
            return
        await self._save()
        try:
            await async_run(self.hass, item.action, Context())
        except HomeAssistantError as err:
            _LOGGER.warning("Scheduled action '%s' failed: %s", item.description, err)
            persistent_notification.async_create(
                self.hass,
                f"Jarvis could not {item.description}: {err}",
                title="Jarvis: scheduled action failed",
            )

    def _report_missed(self, missed: list[Scheduled]) -> None:
        lines = "\n".join(
            f"- {item.description} (due {dt_util.as_local(item.when):%Y-%m-%d %H:%M})"
            for item in missed
        )
        _LOGGER.warning("Scheduled actions missed while stopped:\n%s", lines)
        persistent_notification.async_create(
            self.hass,
            f"These actions were due while Home Assistant was stopped and did not run:\n{lines}",
            title="Jarvis: missed scheduled actions",
            notification_id=f"{DOMAIN}_missed_actions",
        )

    async def _save(self) -> None:
        await self._store.async_save([item.as_dict() for item in self.pending()])

    @callback
    def _async_stop(self, _: Event) -> None:
        """Disarm (stored actions re-arm on the next start)."""
        for cancel in self._timers.values():
            cancel()
        self._timers.clear()
