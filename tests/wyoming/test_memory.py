"""Freed memory goes back to the system (glibc only)."""

from __future__ import annotations

import os
from pathlib import Path
import platform
import sys

import pytest

from wyoming_services.memory import release_free_memory


def _rss() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf(
        "SC_PAGE_SIZE"
    )


@pytest.mark.skipif(
    sys.platform != "linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)
def test_release_free_memory_returns_freed_blocks() -> None:
    # 32 MiB in blocks malloc serves from its heap, then one kept above them: the
    # freed space below it is not at the heap's top, so free() keeps it resident.
    blocks = [bytearray(64 << 10) for _ in range(512)]
    pin = bytearray(64 << 10)
    del blocks
    before = _rss()
    release_free_memory()
    assert _rss() < before - (16 << 20)
    del pin
