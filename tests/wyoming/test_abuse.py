"""The all-in-one server under abuse (short sizes; `python -m tests.wyoming.abuse
--long` for the full ones): each attack contained, honest clients still served."""

from __future__ import annotations

import os

import pytest

from tests.wyoming.abuse import SHORT, Figures, HonestUse, run_all, table

MAX_LOOP_LAG_MS = 100
MAX_ROUND_TRIP_MS = 100
# Over the peak of honest use (one request of each kind, then fifty at once).
MAX_RSS_GROWTH = 0.2
CROWD = "50 concurrent honest clients"


def overload() -> float:
    """How oversubscribed the machine is: runnable processes per core (at least 1).

    The lag figures include waiting for a core: on a machine busy with other work
    (two cores and a load of 5, while developing), the budgets stretch with it.
    """
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def problems(figures: Figures, use: HonestUse, stretch: float) -> list[str]:
    """Where one scenario broke a promise."""
    found = list(figures.failures)
    if not figures.contained:
        found.append(f"not contained: {figures.note}")
    if figures.served < figures.asked:
        found.append(f"honest client served {figures.served}/{figures.asked}")
    # No attack lags the loop more than fifty honest clients do (measured in the
    # same run, on the same machine). The crowd scenario repeats that rival, whose
    # lag is the machine's contention, not the server's fault.
    lag_budget = max(MAX_LOOP_LAG_MS * stretch, use.crowd_loop_lag_ms)
    if figures.scenario != CROWD and figures.loop_lag_ms >= lag_budget:
        found.append(
            f"server loop lag {figures.loop_lag_ms:.0f} ms "
            f"(honest crowd: {use.crowd_loop_lag_ms:.0f} ms)"
        )
    # The crowd's fifty clients run in this process, beside the thread that
    # times `describe`: there its round trip measures this process's load.
    if (
        figures.scenario != CROWD
        and figures.round_trip_ms >= MAX_ROUND_TRIP_MS * stretch
    ):
        found.append(f"describe round trip {figures.round_trip_ms:.0f} ms")
    if figures.rss_growth > MAX_RSS_GROWTH:
        found.append(f"RSS grew {figures.rss_growth:.0%}")
    return [f"{figures.scenario}: {problem}" for problem in found]


@pytest.mark.usefixtures("socket_enabled")
async def test_abuse_is_contained_and_honest_clients_served() -> None:
    use, results = await run_all(SHORT)
    stretch = overload()
    assert len(results) == 7
    # A model run on the event loop would hold it for a whole request.
    assert use.alone_loop_lag_ms < MAX_LOOP_LAG_MS * stretch, use
    found = [
        problem for figures in results for problem in problems(figures, use, stretch)
    ]
    assert not found, "\n".join([*found, f"lag budgets x{stretch:.1f}", table(results)])
