"""python -m wyoming_services.stt --model tiny-int8 --uri tcp://0.0.0.0:10300"""

from __future__ import annotations

import asyncio
import contextlib
from functools import partial

from ..server import base_parser, serve, setup
from . import SttEventHandler, SttService, add_arguments


def main() -> None:
    """Load the model, then serve."""
    parser = base_parser("Jarvis speech-to-text", "tcp://0.0.0.0:10300", "jarvis-stt")
    add_arguments(parser)
    args = parser.parse_args()
    setup(args)
    service = SttService(args)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(args, partial(SttEventHandler, service)))


if __name__ == "__main__":
    main()
