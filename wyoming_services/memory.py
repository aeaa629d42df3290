"""Giving freed memory back to the system (glibc; elsewhere these do nothing).

glibc's malloc keeps what a thread frees for that thread's arena (up to eight per
core) and keeps big freed blocks too, once it has seen one: after a long sentence
or fifty clients at once, hundreds of MiB stayed resident, and the next burst of
other work added its own on top.
"""

from __future__ import annotations

import ctypes
import logging
import platform
import sys
from typing import Final

_LOGGER = logging.getLogger(__name__)

_M_ARENA_MAX: Final = -8
# Arenas for all threads: fewer arenas reuse each other's freed memory.
ARENAS: Final = 2


def _load_glibc() -> ctypes.CDLL | None:
    if sys.platform != "linux" or platform.libc_ver()[0] != "glibc":
        return None
    try:
        return ctypes.CDLL("libc.so.6")
    except OSError:
        return None


_GLIBC: Final = _load_glibc()


def limit_arenas(arenas: int = ARENAS) -> None:
    """Cap malloc's arenas; only threads that start later are bound by it."""
    if _GLIBC is not None and not _GLIBC.mallopt(_M_ARENA_MAX, arenas):
        _LOGGER.warning("Could not cap malloc arenas at %s", arenas)


def release_free_memory() -> None:
    """Return the free pages malloc holds to the system (a few ms; blocking)."""
    if _GLIBC is not None:
        _GLIBC.malloc_trim(0)
