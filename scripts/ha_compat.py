"""Home Assistant 2026.2.3 on this project's Python 3.13.0 and pymicro-vad 2.1.0.

`python scripts/ha_compat.py ARGS` is `hass ARGS` with both gaps closed (`make run`
starts Home Assistant so); tests/conftest.py calls `alias_micro_vad` for the test
instances.
"""

from __future__ import annotations

import sys

import homeassistant.__main__ as hass_main
from pymicro_vad import MicroVad


def alias_micro_vad() -> None:
    """Give pymicro-vad 2.x the name HA 2026.2's pipeline VAD calls.

    assist_pipeline calls pymicro-vad 1.x's `MicroVad.Process10ms`; HA's pin,
    1.0.1, has no wheel for Python 3.13, and 2.1.0 (installed) names the same
    method `process_10ms`.
    """
    MicroVad.Process10ms = MicroVad.process_10ms  # type: ignore[attr-defined]


def main() -> int:
    """Run Home Assistant as its `hass` command does."""
    # HA refuses to start below Python 3.13.2 but runs on 3.13.0.
    hass_main.validate_python = lambda: None
    alias_micro_vad()
    return hass_main.main()


if __name__ == "__main__":
    sys.exit(main())
