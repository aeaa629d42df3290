"""`make run`: a local Home Assistant with Jarvis, a demo house and a local LLM.

Steps: fetch the 0.5B model; use an Ollama server if one answers at OLLAMA_HOST,
else start llama.cpp's server (scripts.llm_server); write `.ha_config/`; start
Home Assistant; finish onboarding and save a long-lived token; add the Jarvis
config entry; then wait. Ctrl-C stops every child process started here.
Re-running reuses the config dir, the user, the token and the entry.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
import contextlib
import os
from pathlib import Path
import signal
import sys
import time
from typing import Any

import aiohttp

from scripts.llm_server import LlamaServer, LlamaServerError
from scripts.models import ModelError, ensure_model

REPO_ROOT = Path(__file__).resolve().parent.parent
CONFIG_DIR = REPO_ROOT / ".ha_config"
TOKEN_FILE = CONFIG_DIR / ".jarvis_token"
HA_LOG = CONFIG_DIR / "home-assistant.log"
# HA logs to the file above and to the console; the console copy also catches
# anything printed before logging is set up.
HA_CONSOLE_LOG = CONFIG_DIR / "home-assistant.console.log"
LLAMA_LOG = REPO_ROOT / ".cache" / "llama-server.log"

HA_PORT = 8123
HA_URL = f"http://127.0.0.1:{HA_PORT}"
CLIENT_ID = f"{HA_URL}/"
REDIRECT_URI = f"{HA_URL}/?auth_callback=1"
USERNAME = "jarvis"
PIPELINE_NAME = "Jarvis"
PASSWORD = "jarvis-local"  # a local dev instance; printed for the browser login

MODEL_NAME = "qwen2.5-coder-0.5b"
LLAMA_PORT = 8080
# Matches the agent's default num_ctx: Assist prompts with the demo house's
# entities and tools run to a few thousand tokens.
LLAMA_CTX = 8192
OLLAMA_DEFAULT = "http://127.0.0.1:11434"
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

# HA 2026.2.3 refuses to start below Python 3.13.2, but runs on the 3.13.0 this
# project is pinned to (see DEVKIT), so its version gate is skipped.
HASS_LAUNCHER = (
    "import sys\n"
    "import homeassistant.__main__ as hass_main\n"
    "hass_main.validate_python = lambda: None\n"
    "sys.exit(hass_main.main())\n"
)


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


async def start_hass() -> asyncio.subprocess.Process:
    console = HA_CONSOLE_LOG.open("wb")
    try:
        return await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            HASS_LAUNCHER,
            "--config",
            str(CONFIG_DIR),
            # Requirements come from requirements_run.txt; HA must not pip
            # install (it would downgrade pymicro-vad for assist_pipeline).
            "--skip-pip",
            # The config dir as cwd keeps the repo's own `custom_components`
            # package (cwd is on sys.path with -c) from shadowing the config's.
            cwd=CONFIG_DIR,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=console,
            stderr=asyncio.subprocess.STDOUT,
            # Own process group: the terminal's Ctrl-C reaches only this
            # script, which stops HA first and the LLM server after it.
            start_new_session=True,
        )
    finally:
        console.close()


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
    deadline = time.monotonic() + HA_START_TIMEOUT
    while time.monotonic() < deadline:
        if proc.returncode is not None:
            raise RunError(
                f"Home Assistant exited with code {proc.returncode} while starting. "
                f"Last lines of {HA_CONSOLE_LOG}:\n{_tail(HA_CONSOLE_LOG)}"
            )
        if await ha_answers(session):
            return
        await asyncio.sleep(1)
    raise RunError(
        f"Home Assistant did not answer at {HA_URL} within {HA_START_TIMEOUT:.0f} s;"
        f" see {HA_LOG}"
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


# --- Jarvis config entry ----------------------------------------------------------


async def ensure_jarvis_entry(
    session: aiohttp.ClientSession, token: str, backend: str, url: str
) -> str | None:
    """Add the Jarvis entry for this server through the config flow.

    The flow aborts with already_configured when an entry for the URL exists,
    which makes re-runs reuse it. Returns the new entry's id, or None.
    """
    flow = await ha_json(
        session,
        "POST",
        "/api/config/config_entries/flow",
        token=token,
        json={"handler": "jarvis", "show_advanced_options": False},
    )
    if flow.get("type") != "form":
        raise RunError(f"Jarvis config flow did not show its form: {flow}")
    result = await ha_json(
        session,
        "POST",
        f"/api/config/config_entries/flow/{flow['flow_id']}",
        token=token,
        json={"backend": backend, "url": url, "api_key": ""},
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

    # HA may still be setting the entry up (it answers HTTP before start-up ends).
    deadline = time.monotonic() + 60
    while True:
        entries = await ha_json(
            session,
            "GET",
            "/api/config/config_entries/entry?domain=jarvis",
            token=token,
        )
        settling = any(e.get("state") in SETTLING_STATES for e in entries)
        if not settling or time.monotonic() > deadline:
            break
        await asyncio.sleep(1)
    for entry in entries:
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


async def ensure_jarvis_pipeline(
    session: aiohttp.ClientSession, token: str, agent: str
) -> None:
    """A preferred Assist pipeline named Jarvis, so the Assist dialog uses Jarvis."""
    async with ha_websocket(session, token) as ws:
        listing = await ws_command(ws, 1, {"type": "assist_pipeline/pipeline/list"})
        pipeline = next(
            (p for p in listing["pipelines"] if p["name"] == PIPELINE_NAME), None
        )
        if pipeline is None:
            pipeline = await ws_command(
                ws,
                2,
                {
                    "type": "assist_pipeline/pipeline/create",
                    "name": PIPELINE_NAME,
                    "language": "en",
                    "conversation_engine": agent,
                    "conversation_language": "en",
                    "stt_engine": None,
                    "stt_language": None,
                    "tts_engine": None,
                    "tts_language": None,
                    "tts_voice": None,
                    "wake_word_entity": None,
                    "wake_word_id": None,
                },
            )
            log(f"Created the Assist pipeline {PIPELINE_NAME!r} with {agent}")
        if listing["preferred_pipeline"] != pipeline["id"]:
            await ws_command(
                ws,
                3,
                {
                    "type": "assist_pipeline/pipeline/set_preferred",
                    "pipeline_id": pipeline["id"],
                },
            )


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

    session = await stack.enter_async_context(aiohttp.ClientSession())
    if await ha_answers(session):
        raise RunError(
            f"something already answers at {HA_URL}; is another `make run` running?"
        )

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

    write_config()
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
            await ensure_jarvis_pipeline(session, token, agents[0])
            print(
                f"\nJarvis is ready ({time.monotonic() - started:.0f} s).\n"
                f"  Home Assistant: http://localhost:{HA_PORT}\n"
                f"  Login:          {USERNAME} / {PASSWORD}\n"
                f"  Agent:          {', '.join(agents)} ({backend} at {url})\n"
                f"  Chat:           make chat   (in another terminal)\n"
                f"  Logs:           {HA_LOG}"
                + ("" if backend == "ollama" else f", {LLAMA_LOG}")
                + "\nPress Ctrl-C to stop.\n",
                flush=True,
            )
        code = await hass.wait()
        if code != RESTART_EXIT_CODE:
            raise RunError(
                f"Home Assistant exited with code {code}; last lines of {HA_LOG}:\n"
                f"{_tail(HA_LOG)}"
            )
        # A restart asked for from the UI exits with 100 and expects a supervisor.
        restarts += 1
        log("Home Assistant asked for a restart")


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
