"""python -m wyoming_services.wake --wake-word hey_jarvis --uri tcp://0.0.0.0:10400"""

from __future__ import annotations

import asyncio
import contextlib
from functools import partial

from ..server import base_parser, serve, setup
from . import WakeEventHandler, WakeService, add_arguments


def main() -> None:
    """Load the models, then serve."""
    parser = base_parser(
        "Jarvis wake word detection", "tcp://0.0.0.0:10400", "jarvis-wake"
    )
    add_arguments(parser)
    args = parser.parse_args()
    setup(args)
    service = WakeService(args)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args, partial(WakeEventHandler, service)))


if __name__ == "__main__":
    main()
