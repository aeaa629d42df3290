"""Delayed and scheduled actions: they run at their time and survive a restart."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from freezegun.api import FrozenDateTimeFactory
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import issue_registry as ir
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util
import pytest
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.jarvis.const import DOMAIN
from custom_components.jarvis.tools.schedule import STORAGE_KEY
from tests.tools.conftest import FRONT_DOOR, KITCHEN, call_tool, setup_home

pytestmark = pytest.mark.usefixtures("ha_core")

TURN_OFF = {"domain": "light", "service": "turn_off", "entity_id": KITCHEN}


async def advance(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory, **delta: float
) -> None:
    freezer.tick(timedelta(**delta))
    async_fire_time_changed(hass)
    await hass.async_block_till_done(wait_background_tasks=True)


@pytest.fixture
async def home(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory, ha_core: None
) -> None:
    """Noon in Amsterdam, the demo home with the kitchen lights on."""
    await hass.config.async_update(time_zone="Europe/Amsterdam")
    freezer.move_to(dt_util.as_utc(dt_util.parse_datetime("2026-03-10T12:00:00+01:00")))
    assert await async_setup_component(hass, DOMAIN, {})
    await setup_home(hass)
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": KITCHEN}, blocking=True
    )


@pytest.mark.usefixtures("home")
async def test_in_ten_minutes(
    hass: HomeAssistant, freezer: FrozenDateTimeFactory, hass_storage: dict[str, Any]
) -> None:
    result = await call_tool(hass, "schedule_action", {**TURN_OFF, "in_minutes": 10})
    assert result["scheduled"]["at"] == "2026-03-10 12:10"
    assert result["scheduled"]["action"] == "turn off Kitchen Lights"
    stored = hass_storage[STORAGE_KEY]["data"]
    assert stored[0]["action"]["entity_ids"] == [KITCHEN]

    await advance(hass, freezer, minutes=9)
    assert hass.states.get(KITCHEN).state == "on"
    await advance(hass, freezer, minutes=1, seconds=1)
    assert hass.states.get(KITCHEN).state == "off"
    assert (await call_tool(hass, "list_scheduled"))["scheduled"] == []
    assert hass_storage[STORAGE_KEY]["data"] == []


@pytest.mark.usefixtures("home")
async def test_at_seven_tomorrow_listed_and_cancelled(hass: HomeAssistant) -> None:
    first = await call_tool(
        hass, "schedule_action", {**TURN_OFF, "at": "7:00", "day": "tomorrow"}
    )
    assert first["scheduled"]["at"] == "2026-03-11 07:00"
    # "at 9" without a day: 9 o'clock has passed today, so tomorrow.
    second = await call_tool(hass, "schedule_action", {**TURN_OFF, "at": "9am"})
    assert second["scheduled"]["at"] == "2026-03-11 09:00"
    listed = (await call_tool(hass, "list_scheduled"))["scheduled"]
    assert [item["at"] for item in listed] == ["2026-03-11 07:00", "2026-03-11 09:00"]

    cancelled = await call_tool(
        hass, "cancel_scheduled", {"id": first["scheduled"]["id"]}
    )
    assert cancelled["success"] is True
    assert len((await call_tool(hass, "list_scheduled"))["scheduled"]) == 1
    with pytest.raises(
        HomeAssistantError, match=r"No scheduled action nope. Scheduled: "
    ):
        await call_tool(hass, "cancel_scheduled", {"id": "nope"})


@pytest.mark.usefixtures("home")
async def test_bad_times_and_targets_are_refused_up_front(hass: HomeAssistant) -> None:
    for args, message in (
        ({"at": "25:00"}, "Cannot read the time"),
        ({"at": "11:00", "day": "today"}, "in the past"),
        ({"in_minutes": 60 * 24 * 40}, "30 days"),
        ({"in_minutes": 1e20}, "must be a number of minutes"),
        ({"in_minutes": float("nan")}, "must be a number of minutes"),
        ({}, "Give in_minutes"),
    ):
        with pytest.raises(HomeAssistantError, match=message):
            await call_tool(hass, "schedule_action", {**TURN_OFF, **args})
    with pytest.raises(HomeAssistantError, match="Unknown or unexposed"):
        await call_tool(
            hass,
            "schedule_action",
            {**TURN_OFF, "entity_id": "light.nowhere", "in_minutes": 5},
        )


@pytest.mark.usefixtures("home")
async def test_scheduled_unlock_needs_confirmation(hass: HomeAssistant) -> None:
    result = await call_tool(
        hass,
        "schedule_action",
        {
            "domain": "lock",
            "service": "unlock",
            "entity_id": FRONT_DOOR,
            "in_minutes": 1,
        },
    )
    assert result["confirmation_required"] is True
    assert (await call_tool(hass, "list_scheduled"))["scheduled"] == []


async def test_restart_rearms_runs_recent_and_reports_old(
    hass: HomeAssistant,
    freezer: FrozenDateTimeFactory,
    hass_storage: dict[str, Any],
) -> None:
    await hass.config.async_update(time_zone="Europe/Amsterdam")
    now = dt_util.as_utc(dt_util.parse_datetime("2026-03-10T12:00:00+01:00"))
    freezer.move_to(now)
    await setup_home(hass)
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": "all"}, blocking=True
    )
    lights = hass.states.async_entity_ids("light")

    def stored(item_id: str, when: timedelta, entity_id: str) -> dict[str, Any]:
        return {
            "id": item_id,
            "when": (now + when).isoformat(),
            "action": {
                "domain": "light",
                "service": "turn_off",
                "entity_ids": [entity_id],
                "data": {},
            },
            "description": f"turn off {entity_id}",
        }

    hass_storage[STORAGE_KEY] = {
        "version": 1,
        "key": STORAGE_KEY,
        "data": [
            stored("future", timedelta(minutes=30), lights[0]),
            stored("recent", timedelta(minutes=-5), lights[1]),
            stored("old", timedelta(hours=-3), lights[2]),
        ],
    }
    # Home Assistant starts again.
    assert await async_setup_component(hass, DOMAIN, {})
    await hass.async_block_till_done(wait_background_tasks=True)

    assert hass.states.get(lights[1]).state == "off"  # missed by 5 min: run
    assert hass.states.get(lights[2]).state == "on"  # missed by 3 h: reported
    notification = hass.data["persistent_notification"][f"{DOMAIN}_missed_actions"]
    assert f"turn off {lights[2]}" in notification["message"]
    assert [
        item["id"] for item in (await call_tool(hass, "list_scheduled"))["scheduled"]
    ] == ["future"]
    await advance(hass, freezer, minutes=31)
    assert hass.states.get(lights[0]).state == "off"


@pytest.mark.parametrize(
    "data",
    [
        {"not": "a list"},
        [{"id": "x", "when": "soon", "action": {}, "description": "?"}],
        [{"id": "x"}],
    ],
)
async def test_stored_actions_of_the_wrong_shape_are_set_aside(
    hass: HomeAssistant, hass_storage: dict[str, Any], data: Any
) -> None:
    await setup_home(hass)
    hass_storage[STORAGE_KEY] = {"version": 1, "key": STORAGE_KEY, "data": data}

    assert await async_setup_component(hass, DOMAIN, {})

    assert (await call_tool(hass, "list_scheduled"))["scheduled"] == []
    assert hass_storage[f"{STORAGE_KEY}.bad"]["data"] == data
    assert ir.async_get(hass).async_get_issue(DOMAIN, f"bad_store_{STORAGE_KEY}")
