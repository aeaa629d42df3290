"""The worker pool's ordering, the part TTS latency under load rests on."""

from __future__ import annotations

import asyncio
import threading

import pytest

from wyoming_services import workers
from wyoming_services.workers import ObjectPool, WorkerPool


async def test_reserved_worker_takes_urgent_job_while_others_are_busy() -> None:
    pool = WorkerPool("test", workers=2, reserved=1)
    release = threading.Event()
    try:
        long_jobs = [pool.submit(release.wait, 10, priority=1) for _ in range(2)]
        # Both long jobs wait for the one unreserved worker; this one goes first.
        assert (
            await asyncio.wait_for(pool.run(lambda: "urgent", priority=0), 5)
            == "urgent"
        )
        assert not any(job.done() for job in long_jobs)
    finally:
        release.set()
        await asyncio.gather(*long_jobs)
        pool.close()


async def test_lower_priority_first_and_cancelled_jobs_skipped() -> None:
    pool = WorkerPool("test", workers=1)
    gate = threading.Event()
    order: list[str] = []
    try:
        blocker = pool.submit(gate.wait, 10)
        later = pool.submit(order.append, "later", priority=2)
        skipped = pool.submit(order.append, "skipped", priority=1)
        sooner = pool.submit(order.append, "sooner", priority=1)
        skipped.cancel()
        gate.set()
        await asyncio.gather(blocker, later, sooner)
    finally:
        pool.close()
    assert order == ["sooner", "later"]


async def test_threads_end_when_idle_and_start_when_needed() -> None:
    pool = WorkerPool("test", workers=3, idle_seconds=0.2)
    gate = threading.Event()
    try:
        assert pool.threads == 3
        await asyncio.sleep(1)
        assert pool.threads == 0
        jobs = [pool.submit(gate.wait, 10) for _ in range(5)]
        assert pool.threads == 3  # never more than `workers`
        gate.set()
        await asyncio.gather(*jobs)
        await asyncio.sleep(1)
        assert pool.threads == 0
        # A pool that shrank to nothing still serves.
        assert await asyncio.wait_for(pool.run(lambda: "again"), 5) == "again"
    finally:
        gate.set()
        pool.close()


async def test_free_memory_released_when_the_last_job_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    releases: list[float] = []
    released = threading.Event()

    def release() -> None:
        releases.append(0.0)
        released.set()

    monkeypatch.setattr(workers, "release_free_memory", release)
    pool = WorkerPool("test", workers=1)
    gate = threading.Event()
    try:
        jobs = [pool.submit(gate.wait, 10) for _ in range(3)]
        gate.set()
        await asyncio.gather(*jobs)
        assert await asyncio.to_thread(released.wait, 5)
    finally:
        pool.close()
    # Not after the first two jobs: the others were still queued.
    assert len(releases) == 1


def test_object_pool_keeps_a_few() -> None:
    made: list[object] = []

    def make() -> object:
        made.append(object())
        return made[-1]

    pool = ObjectPool(make, lambda _: None, keep=2)
    taken = [pool.acquire() for _ in range(5)]
    for obj in taken:
        pool.release(obj)
    assert [pool.acquire() for _ in range(3)] == [taken[1], taken[0], made[5]]
