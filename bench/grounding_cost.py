"""What checking a reply against the home costs, per sentence (issue #13,
grounded replies), on the home of `bench.home_prompt`: 200 exposed devices.

    python -m bench.grounding_cost [--count 200] [--rounds 2000]

In a real Home Assistant test instance it times reading the live view
(`tools.home.house_view`: once per released text that claims something) and
the check itself (`engine.grounding.ground`) for a sentence that claims
nothing, a true claim, a false one, and an action nobody did. A sentence is
spoken only once it is checked, so the first sentence's view and check are
what grounding adds to the time to first audio. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Sequence
from functools import partial
import time

from custom_components.jarvis.engine.grounding import Device, ground
from custom_components.jarvis.tools.home import house_view

from .home_prompt import async_build_home
from .scenarios.runner import home_assistant

# A window sensor of the home: closed (off) as the home is built.
WINDOW = "Kitchen Window"
SENTENCES = (
    ("claims nothing", "Sure, I can help with that."),
    ("true state", f"The {WINDOW.lower()} is closed."),
    ("false state", f"The {WINDOW.lower()} is open."),
    ("action not done", f"Done, I opened the {WINDOW.lower()}."),
)


def microseconds(work: Callable[[], object], rounds: int) -> float:
    """The mean time of one call, in microseconds."""
    started = time.perf_counter()
    for _ in range(rounds):
        work()
    return (time.perf_counter() - started) / rounds * 1e6


async def main(count: int, rounds: int) -> None:
    """Build the home, then time the view and each sentence's check."""
    async with home_assistant() as hass:
        await async_build_home(hass, count)
        view = house_view(hass, "conversation")
        devices: Sequence[Device] = view([])
        assert any(WINDOW in device.names for device in devices), WINDOW
        print(f"{len(devices)} exposed devices, {rounds} rounds each")
        print("| what | result | µs |")
        print("|---|---|---|")
        read = microseconds(lambda: view([]), max(1, rounds // 10))
        print(f"| read the live view (`house_view`) | | {read:.0f} |")
        for what, sentence in SENTENCES:
            check = partial(ground, sentence, "en", lambda: devices)
            said, took = check().text, microseconds(check, rounds)
            print(f"| check: {what}, {sentence!r} | {said!r} | {took:.0f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.grounding_cost")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    asyncio.run(main(args.count, args.rounds))
