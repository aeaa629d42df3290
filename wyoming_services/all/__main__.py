"""python -m wyoming_services.all --model tiny-int8 --voice en_US-lessac-medium"""

from __future__ import annotations

import asyncio
import contextlib
from functools import partial

from .. import stt, tts, wake
from ..server import base_parser, serve, setup
from . import AllEventHandler, Services


def main() -> None:
    """Load every model, then serve."""
    parser = base_parser(
        "Jarvis speech-to-text, text-to-speech and wake word",
        "tcp://0.0.0.0:10500",
        "jarvis",
    )
    for service in (stt, tts, wake):
        service.add_arguments(parser)
    args = parser.parse_args()
    setup(args)
    services = Services(
        stt.SttService(args), tts.TtsService(args), wake.WakeService(args)
    )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args, partial(AllEventHandler, services)))


if __name__ == "__main__":
    main()
