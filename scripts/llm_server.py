"""Run llama.cpp's OpenAI-compatible HTTP server (from xllamacpp) in its own process.

CLI:  python -m scripts.llm_server --model PATH [--host H] [--port P] [--ctx N]
      [--threads N] [--parallel N] [--n-predict N] [--alias NAME]

`LlamaServer` spawns that CLI on a free port, waits for `/health`, exposes
`.url`, and terminates the process on stop; it works as a sync or async context
manager. A separate process keeps llama.cpp's threads and memory out of the
caller (Home Assistant, pytest) and lets a stuck generation be killed.

Routes served: /health, /v1/models, /v1/chat/completions (no Ollama /api/*).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
import contextlib
import json
import os
from pathlib import Path
import signal
import socket
import subprocess
import sys
import threading
import time
from types import TracebackType
from typing import IO, Self
import urllib.error
import urllib.request

REPO_ROOT = Path(__file__).resolve().parent.parent
# A runaway generation from a small model can hold the single slot for minutes
# (docs/DEVELOPMENT.md); clients should send max_tokens, this is the server-side backstop.
DEFAULT_N_PREDICT = 1024


class LlamaServerError(RuntimeError):
    """The llama.cpp server process failed to start or become healthy."""


def default_threads() -> int:
    return max(1, os.cpu_count() or 1)


def serve(
    *,
    model: Path,
    host: str,
    port: int,
    ctx: int,
    threads: int,
    parallel: int,
    n_predict: int,
    alias: str,
) -> None:
    """Serve until SIGTERM or SIGINT (blocking)."""
    # Imported here so that importing this module (tests, scripts.run) stays cheap.
    import xllamacpp  # noqa: PLC0415

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.model_alias = {alias}  # the id /v1/models reports, instead of the path
    params.hostnames = [host]
    params.port = port
    params.n_ctx = ctx
    params.n_parallel = parallel
    params.n_predict = n_predict
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda _sig, _frame: stop.set())

    # Server() loads the model and starts listening in background threads.
    server = xllamacpp.Server(params)
    print(f"llama server listening on {server.listening_address}", flush=True)
    stop.wait()
    del server  # joins llama.cpp's main loop before the interpreter exits


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port on `host` that nothing listens on now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _health_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as resp:
            body = json.loads(resp.read() or b"{}")
    except (OSError, ValueError):
        return False
    return bool(resp.status == 200 and body.get("status") == "ok")


def _tail(path: Path | None, lines: int = 20) -> str:
    if path is None or not path.is_file():
        return ""
    text = path.read_text(errors="replace").splitlines()[-lines:]
    return "\n".join(text)


class LlamaServer:
    """A llama.cpp server subprocess bound to one model."""

    def __init__(
        self,
        model: Path | str,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        ctx: int = 4096,
        threads: int | None = None,
        parallel: int = 1,
        n_predict: int = DEFAULT_N_PREDICT,
        alias: str | None = None,
        log_path: Path | None = None,
        startup_timeout: float = 120.0,
    ) -> None:
        self.model = Path(model)
        self.host = host
        self.port = port
        self.ctx = ctx
        self.threads = threads or default_threads()
        self.parallel = parallel
        self.n_predict = n_predict
        # The file stem is a readable, stable model id for clients.
        self.alias = alias or self.model.stem
        self.log_path = log_path
        self.startup_timeout = startup_timeout
        self.startup_seconds: float | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        if self.port is None:
            raise LlamaServerError("server not started")
        return f"http://{self.host}:{self.port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self) -> None:
        """Spawn the server and block until /health answers ok."""
        if self._proc is not None:
            raise LlamaServerError("server already started")
        if not self.model.is_file():
            raise LlamaServerError(f"model file not found: {self.model}")
        if self.port is None:
            self.port = free_port(self.host)
        cmd = [
            sys.executable,
            "-m",
            "scripts.llm_server",
            "--model",
            str(self.model),
            "--host",
            self.host,
            "--port",
            str(self.port),
            "--ctx",
            str(self.ctx),
            "--threads",
            str(self.threads),
            "--parallel",
            str(self.parallel),
            "--n-predict",
            str(self.n_predict),
            "--alias",
            self.alias,
        ]
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = self.log_path.open("ab")
        out = self._log if self._log is not None else subprocess.DEVNULL
        started = time.monotonic()
        self._proc = subprocess.Popen(
            cmd,
            cwd=REPO_ROOT,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            # Own process group: a Ctrl-C in the terminal reaches the parent,
            # which then stops this child in order.
            start_new_session=True,
        )
        try:
            self._wait_healthy(started)
        except BaseException:
            self.stop()
            raise
        self.startup_seconds = time.monotonic() - started

    def _wait_healthy(self, started: float) -> None:
        assert self._proc is not None
        deadline = started + self.startup_timeout
        while time.monotonic() < deadline:
            code = self._proc.poll()
            if code is not None:
                raise LlamaServerError(
                    f"llama server exited with code {code} during startup"
                    + self._log_hint()
                )
            if _health_ok(self.url):
                return
            time.sleep(0.25)
        raise LlamaServerError(
            f"llama server at {self.url} not healthy after "
            f"{self.startup_timeout:.0f} s" + self._log_hint()
        )

    def _log_hint(self) -> str:
        tail = _tail(self.log_path)
        if not tail:
            return ""
        return f"; last lines of {self.log_path}:\n{tail}"

    def stop(self, timeout: float = 10.0) -> None:
        """Terminate the process (SIGTERM, then SIGKILL after timeout)."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None

    async def async_start(self) -> None:
        await asyncio.to_thread(self.start)

    async def async_stop(self) -> None:
        await asyncio.to_thread(self.stop)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> Self:
        await self.async_start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.async_stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.llm_server")
    parser.add_argument("--model", type=Path, required=True, help="GGUF file")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080, help="0 picks a free one")
    parser.add_argument("--ctx", type=int, default=4096, help="context tokens")
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--parallel", type=int, default=1, help="slots")
    parser.add_argument(
        "--n-predict",
        type=int,
        default=DEFAULT_N_PREDICT,
        help="max completion tokens when a request sets none (-1: unlimited)",
    )
    parser.add_argument("--alias", help="model id for /v1/models (default: stem)")
    args = parser.parse_args(argv)
    if not args.model.is_file():
        print(f"error: model file not found: {args.model}", file=sys.stderr)
        return 1
    try:
        serve(
            model=args.model,
            host=args.host,
            port=args.port,
            ctx=args.ctx,
            threads=args.threads,
            parallel=args.parallel,
            n_predict=args.n_predict,
            alias=args.alias or args.model.stem,
        )
    except RuntimeError as err:
        # xllamacpp says only "Failed to init server"; llama.cpp's log above has why.
        print(f"error: llama.cpp could not serve {args.model}: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
