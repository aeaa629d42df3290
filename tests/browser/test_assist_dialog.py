"""The Assist dialog in a real browser against the Home Assistant of `make run`.

scripts/run.py brings up the whole stack (llama.cpp with the 0.5B model, the
Wyoming servers, HA with the demo home and the preferred Jarvis pipeline) in a
temporary config dir on free ports, so a developer's own `make run` can keep
running. assist_dialog.mjs then drives Debian's headless Chromium with
playwright-core: it logs in with the credentials run.py printed, types a command
into the Assist dialog and reports the reply and the light's tile as rendered.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
import json
import os
from pathlib import Path
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from scripts.llm_server import free_port
from scripts.run import REPO_ROOT

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "assist_dialog.mjs"
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACT_DIR = REPO_ROOT / ".cache" / "artifacts"
READY_TIMEOUT = 300.0  # run.py loads the speech models and starts HA
STOP_TIMEOUT = 200.0  # run.py gives each of its three children 60 s
BROWSER_TIMEOUT = 300.0

COMMAND = "turn on the kitchen lights"
LIGHT_ID = "light.kitchen_lights"
LIGHT_NAME = "Kitchen Lights"

pytestmark = [pytest.mark.real_model, pytest.mark.browser]


@dataclass(frozen=True)
class RunningStack:
    """What `make run` printed, and where its config lives."""

    url: str
    username: str
    password: str
    config_dir: Path

    def call_service(self, domain: str, service: str, entity_id: str) -> None:
        token = (self.config_dir / ".jarvis_token").read_text().strip()
        request = urllib.request.Request(
            f"{self.url}/api/services/{domain}/{service}",
            data=json.dumps({"entity_id": entity_id}).encode(),
            headers={
                "Authorization": f"Bearer {token}",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request, timeout=30):
            pass

    def answered_by(self) -> str:
        """How Jarvis answered the last turn, from HA's log (telemetry's line)."""
        log = (self.config_dir / "home-assistant.log").read_text(errors="replace")
        paths = re.findall(r"answered by (\w+) in", log)
        return paths[-1] if paths else "unknown"


def _missing_tools() -> list[str]:
    missing = [] if shutil.which("node") else ["node"]
    if not CHROMIUM.exists():
        missing.append(f"{CHROMIUM} (scripts/system_deps.sh)")
    if not (HERE / "node_modules" / "playwright-core").is_dir():
        missing.append("playwright-core (make browser-deps)")
    return missing


@pytest.fixture
def make_run(tmp_path: Path, socket_enabled: None) -> Iterator[RunningStack]:
    """`python -m scripts.run`, as `make run` starts it, until it says it is ready."""
    if missing := _missing_tools():
        pytest.fail(f"missing for the browser test: {', '.join(missing)}")
    ha_port = free_port()
    env = {
        **os.environ,
        "JARVIS_HA_CONFIG": str(tmp_path / "ha_config"),
        "JARVIS_HA_PORT": str(ha_port),
        "JARVIS_LLAMA_PORT": str(free_port()),
        "JARVIS_WYOMING_PORT": str(free_port()),
        # Nothing listens there: the embedded llama.cpp serves the 0.5B model
        # even where a developer runs Ollama.
        "OLLAMA_HOST": f"127.0.0.1:{free_port()}",
    }
    output = tmp_path / "run.out"
    with output.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "scripts.run"],
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while "Jarvis is ready" not in (text := output.read_text(errors="replace")):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(
                    f"`make run` did not get ready (exit {proc.poll()}):\n{text}"
                )
            time.sleep(0.5)
        login = re.search(r"Login:\s+(\S+) / (\S+)", text)
        assert login, text
        yield RunningStack(
            f"http://127.0.0.1:{ha_port}",
            login[1],
            login[2],
            tmp_path / "ha_config",
        )
    finally:
        # What Ctrl-C does: run.py stops HA, the LLM and speech servers.
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            pytest.fail(f"`make run` did not stop on SIGINT; see {output}")


def test_assist_dialog_turns_on_the_light(
    make_run: RunningStack, capsys: pytest.CaptureFixture[str]
) -> None:
    # The demo starts with the kitchen lights on; off first, so a change shows.
    make_run.call_service("light", "turn_off", LIGHT_ID)
    ARTIFACT_DIR.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    browser = subprocess.run(
        [
            "node",
            str(SCRIPT),
            make_run.url,
            make_run.username,
            make_run.password,
            COMMAND,
            LIGHT_NAME,
            str(ARTIFACT_DIR),
        ],
        capture_output=True,
        text=True,
        timeout=BROWSER_TIMEOUT,
        check=False,
    )
    assert browser.returncode == 0, browser.stdout + browser.stderr
    shown = json.loads(browser.stdout.strip().splitlines()[-1])
    with capsys.disabled():
        print(
            f"\n[browser] reply {shown['reply']!r} (answered by"
            f" {make_run.answered_by()}) in {time.monotonic() - started:.1f} s;"
            f" screenshots: {', '.join(shown['screenshots'])}"
        )

    assert shown["before"] == "Off"
    assert re.search(r"\blights?\b", shown["reply"], re.IGNORECASE), shown
    assert re.search(r"\bon\b", shown["reply"], re.IGNORECASE), shown
    # A light that is on shows its brightness (or "On" without one).
    assert re.fullmatch(r"On|\d+ ?%", shown["after"]), shown
    for screenshot in shown["screenshots"]:
        assert Path(screenshot).stat().st_size > 0
