"""Threads for blocking work (inference, file loading), kept off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
import heapq
import itertools
import logging
import threading
from typing import Any

_LOGGER = logging.getLogger(__name__)


@dataclass(slots=True)
class _Job:
    func: Callable[..., Any]
    args: tuple[Any, ...]
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop


def _settle(
    future: asyncio.Future[Any], result: Any, error: BaseException | None
) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


class WorkerPool:
    """A fixed set of threads that run jobs lowest priority number first.

    Unlike `asyncio.to_thread`, the order is chosen by the caller (a reply's first
    sentence before anyone's second one) and the threads exist from the start.
    `reserved` threads only take urgent jobs (priority <= 0), so one that arrives
    while the others are busy with long jobs starts at once.
    """

    def __init__(self, name: str, workers: int, reserved: int = 0) -> None:
        self._jobs: list[tuple[int, int, _Job]] = []
        self._ready = threading.Condition()
        self._order = itertools.count()
        self._closed = False
        workers = max(1, workers)
        reserved = min(reserved, workers - 1)
        self._threads = [
            threading.Thread(
                target=self._work, args=(i < reserved,), name=f"{name}-{i}", daemon=True
            )
            for i in range(workers)
        ]
        for thread in self._threads:
            thread.start()

    def submit[T](
        self, func: Callable[..., T], *args: Any, priority: int = 0
    ) -> asyncio.Future[T]:
        """Queue `func(*args)`; cancelling the future skips it if not yet started."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        with self._ready:
            heapq.heappush(
                self._jobs,
                (priority, next(self._order), _Job(func, args, future, loop)),
            )
            self._ready.notify_all()
        return future

    async def run[T](self, func: Callable[..., T], *args: Any, priority: int = 0) -> T:
        """Run `func(*args)` on a worker and wait for it."""
        return await self.submit(func, *args, priority=priority)

    def close(self) -> None:
        """Stop the threads once queued jobs are done."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()
        for thread in self._threads:
            thread.join()

    def _next(self, urgent_only: bool) -> _Job | None:
        with self._ready:
            while True:
                if self._jobs and (not urgent_only or self._jobs[0][0] <= 0):
                    return heapq.heappop(self._jobs)[2]
                if self._closed and (urgent_only or not self._jobs):
                    return None
                self._ready.wait()

    def _work(self, urgent_only: bool) -> None:
        while (job := self._next(urgent_only)) is not None:
            if job.future.cancelled():
                continue
            result: Any = None
            error: BaseException | None = None
            try:
                result = job.func(*job.args)
            except BaseException as err:  # handed to the awaiting coroutine
                error = err
            try:
                job.loop.call_soon_threadsafe(_settle, job.future, result, error)
            except RuntimeError:
                _LOGGER.debug("Event loop closed before a job finished")


class ObjectPool[T]:
    """Reusable stateful objects (VAD, wake word detectors), reset between users."""

    def __init__(self, factory: Callable[[], T], reset: Callable[[T], None]) -> None:
        self._factory = factory
        self._reset = reset
        self._free: list[T] = []
        self._lock = threading.Lock()

    def acquire(self) -> T:
        """A free object, or a new one."""
        with self._lock:
            if self._free:
                return self._free.pop()
        return self._factory()

    def release(self, obj: T) -> None:
        """Reset an object and keep it for the next user."""
        self._reset(obj)
        with self._lock:
            self._free.append(obj)
