"""`make chat`: talk to the Jarvis agent of the HA that `make run` started.

Uses HA's REST API (POST /api/conversation/process) with the token that
`make run` saved, and keeps the conversation id across lines.

Usage: python -m scripts.chat [--once TEXT] [--agent ENTITY_ID]
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
import sys
import time
from typing import Any

import aiohttp

from scripts.run import (
    HA_URL,
    TOKEN_FILE,
    RunError,
    ha_answers,
    ha_json,
    jarvis_agents,
    read_token,
)

# A reply may wait for a cold prompt on a small CPU model: be generous.
REQUEST_TIMEOUT = 300.0


class ChatError(RuntimeError):
    """Chat cannot start or a request failed."""


async def pick_agent(
    session: aiohttp.ClientSession, token: str, wanted: str | None
) -> str:
    agents = await jarvis_agents(session, token)
    if wanted:
        if wanted not in agents:
            raise ChatError(
                f"{wanted} is not a Jarvis agent; agents: {', '.join(agents) or '-'}"
            )
        return wanted
    if not agents:
        raise ChatError("Home Assistant has no Jarvis agent; run `make run` first")
    # An entry whose server is gone (say, an old Ollama URL) has an unavailable agent.
    for agent_id in agents:
        state = await ha_json(
            session, "GET", f"/api/states/{agent_id}", token=token, expect=(200, 404)
        )
        if state.get("state") != "unavailable":
            return agent_id
    raise ChatError(f"every Jarvis agent is unavailable: {', '.join(agents)}")


def speech_of(response: dict[str, Any]) -> str:
    """The plain speech of a conversation result."""
    speech = response.get("response", {}).get("speech", {})
    return str(speech.get("plain", {}).get("speech", "")).strip()


async def ask(
    session: aiohttp.ClientSession,
    token: str,
    agent_id: str,
    text: str,
    conversation_id: str | None,
) -> tuple[str, str | None, float]:
    """Send one line; return the reply speech, conversation id and seconds."""
    body: dict[str, Any] = {"text": text, "agent_id": agent_id, "language": "en"}
    if conversation_id:
        body["conversation_id"] = conversation_id
    started = time.monotonic()
    result = await ha_json(
        session, "POST", "/api/conversation/process", token=token, json=body
    )
    elapsed = time.monotonic() - started
    return speech_of(result), result.get("conversation_id"), elapsed


async def _chat(once: str | None, agent: str | None) -> None:
    timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        if not await ha_answers(session):
            raise ChatError(f"Home Assistant is not running at {HA_URL}; `make run`")
        token = read_token()
        if token is None:
            raise ChatError(f"no token in {TOKEN_FILE}; start HA with `make run`")
        agent_id = await pick_agent(session, token, agent)

        if once is not None:
            reply, _, elapsed = await ask(session, token, agent_id, once, None)
            print(f"{reply}\n({elapsed:.1f} s)")
            return

        print(f"Chatting with {agent_id}. Empty line or Ctrl-D quits.")
        conversation_id: str | None = None
        while True:
            try:
                text = (await asyncio.to_thread(input, "you> ")).strip()
            except EOFError:
                print()
                return
            if not text:
                return
            reply, conversation_id, elapsed = await ask(
                session, token, agent_id, text, conversation_id
            )
            print(f"jarvis> {reply}   ({elapsed:.1f} s)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.chat")
    parser.add_argument("--once", metavar="TEXT", help="send one line and exit")
    parser.add_argument("--agent", help="conversation entity id (default: first)")
    args = parser.parse_args(argv)
    try:
        asyncio.run(_chat(args.once, args.agent))
    except (ChatError, RunError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except TimeoutError:
        print(f"error: no reply within {REQUEST_TIMEOUT:.0f} s", file=sys.stderr)
        return 1
    except aiohttp.ClientError as err:
        print(f"error: lost Home Assistant at {HA_URL}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
