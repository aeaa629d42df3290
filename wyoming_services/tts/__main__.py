"""python -m wyoming_services.tts --voice en_US-lessac-medium --data-dir ./voices"""

from __future__ import annotations

import asyncio
import contextlib
from functools import partial

from ..server import base_parser, serve, setup
from . import TtsEventHandler, TtsService, add_arguments


def main() -> None:
    """Load the default voice, then serve."""
    parser = base_parser("Jarvis text-to-speech", "tcp://0.0.0.0:10200", "jarvis-tts")
    add_arguments(parser)
    args = parser.parse_args()
    setup(args)
    service = TtsService(args)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args, partial(TtsEventHandler, service)))


if __name__ == "__main__":
    main()
