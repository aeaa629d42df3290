"""Threads for blocking work (inference, file loading), kept off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
import heapq
import itertools
import logging
import os
import threading
from typing import Any, Final

from .memory import release_free_memory

_LOGGER = logging.getLogger(__name__)

IDLE_SECONDS: Final = 60.0


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
    """Up to `workers` threads that run jobs lowest priority number first.

    Unlike `asyncio.to_thread`, the order is chosen by the caller (a reply's first
    sentence before anyone's second one). `reserved` threads only take urgent jobs
    (priority <= 0), so one that arrives while the others are busy with long jobs
    starts at once. All start at once (the first requests find them ready); each
    ends after `idle_seconds` without a job, and busy moments start them again.
    Whenever the last running job ends with none queued, the memory malloc holds
    free goes back to the system (about 3 ms after a sentence of speech).
    """

    def __init__(
        self,
        name: str,
        workers: int,
        reserved: int = 0,
        idle_seconds: float = IDLE_SECONDS,
    ) -> None:
        self._name = name
        self._jobs: list[tuple[int, int, _Job]] = []
        self._ready = threading.Condition()
        self._order = itertools.count()
        self._names = itertools.count()
        self._closed = False
        self._idle_seconds = idle_seconds
        workers = max(1, workers)
        reserved = min(reserved, workers - 1)
        # Per kind (urgent only or not): most threads, running ones, waiting ones.
        self._most = {False: workers - reserved, True: reserved}
        self._threads: dict[bool, set[threading.Thread]] = {False: set(), True: set()}
        self._waiting = {False: 0, True: 0}
        self._running = 0
        with self._ready:
            for urgent_only, most in self._most.items():
                for _ in range(most):
                    self._start(urgent_only)

    @property
    def threads(self) -> int:
        """Threads running now."""
        with self._ready:
            return sum(map(len, self._threads.values()))

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
            self._grow()
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
            threads = [t for kind in self._threads.values() for t in kind]
        for thread in threads:
            thread.join()

    def _grow(self) -> None:
        # Called with the lock held, after a job was queued.
        urgent = sum(1 for job in self._jobs if job[0] <= 0)
        if len(self._jobs) > self._waiting[False] and self._room(urgent_only=False):
            self._start(urgent_only=False)
        elif urgent > sum(self._waiting.values()) and self._room(urgent_only=True):
            self._start(urgent_only=True)

    def _room(self, urgent_only: bool) -> bool:
        return len(self._threads[urgent_only]) < self._most[urgent_only]

    def _start(self, urgent_only: bool) -> None:
        thread = threading.Thread(
            target=self._work,
            args=(urgent_only,),
            name=f"{self._name}-{next(self._names)}",
            daemon=True,
        )
        self._threads[urgent_only].add(thread)
        thread.start()

    def _next(self, urgent_only: bool) -> _Job | None:
        idle = False
        with self._ready:
            while True:
                if self._jobs and (not urgent_only or self._jobs[0][0] <= 0):
                    self._running += 1
                    return heapq.heappop(self._jobs)[2]
                if idle or (self._closed and (urgent_only or not self._jobs)):
                    break
                self._waiting[urgent_only] += 1
                try:
                    idle = not self._ready.wait(self._idle_seconds)
                finally:
                    self._waiting[urgent_only] -= 1
            self._threads[urgent_only].discard(threading.current_thread())
            return None

    def _work(self, urgent_only: bool) -> None:
        while (job := self._next(urgent_only)) is not None:
            if not job.future.cancelled():
                self._run(job)
            with self._ready:
                self._running -= 1
                idle = not self._running and not self._jobs
            if idle:
                release_free_memory()

    @staticmethod
    def _run(job: _Job) -> None:
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
    """Reusable stateful objects (VAD, wake word detectors), reset between users.

    At most `keep` are kept free: after fifty clients at once, fifty detectors
    would otherwise stay in memory for good.
    """

    def __init__(
        self,
        factory: Callable[[], T],
        reset: Callable[[T], None],
        keep: int = os.cpu_count() or 1,
    ) -> None:
        self._factory = factory
        self._reset = reset
        self._keep = keep
        self._free: list[T] = []
        self._out = 0
        self._lock = threading.Lock()

    def acquire(self) -> T:
        """A free object, or a new one."""
        with self._lock:
            self._out += 1
            if self._free:
                return self._free.pop()
        return self._factory()

    def try_acquire(self, limit: int) -> T | None:
        """Like `acquire`, but None if `limit` objects are in use already."""
        with self._lock:
            if self._out >= limit:
                return None
        return self.acquire()

    def release(self, obj: T) -> None:
        """Reset an object and keep it for the next user."""
        with self._lock:
            self._out -= 1
            if len(self._free) >= self._keep:
                return
        self._reset(obj)
        with self._lock:
            self._free.append(obj)
