"""Small talk the model only said back is answered in Jarvis's words."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.echo import SmallTalk, echoes
from custom_components.jarvis.engine.llm.base import LLMClient
from custom_components.jarvis.engine.loop import LoopSettings, ReplyLoop
from custom_components.jarvis.engine.types import Message
from tests.engine.test_loop import TOOLS, make_host
from tests.scripted_llm import Reply, ScriptedLLMServer


@pytest.mark.parametrize(
    ("request_text", "sentence", "language", "echoed"),
    [
        ("thank you!", "Thank you!", "en", True),
        ("thanks so much for your help", "Thank you for your help!", "en", True),
        ("danke schön", "Danke!", "de", True),
        ("good morning jarvis, how are you?", "How are you?", "en", True),
        # Words of its own, or a greeting back: no echo.
        ("thank you!", "You're welcome!", "en", False),
        ("hello", "Hello!", "en", False),
        ("how are you today?", "I'm well, and how are you doing today?", "en", False),
    ],
)
def test_echoes(request_text: str, sentence: str, language: str, echoed: bool) -> None:
    assert echoes(sentence, request_text, language) is echoed


def test_the_first_echo_is_answered_and_the_rest_left_out() -> None:
    small_talk = SmallTalk("good morning jarvis, how are you this morning?", "en")
    said = [small_talk.said(s) for s in ("Good morning, Jarvis! ", "How are you?")]
    assert said == ["Hello! I'm doing well, thanks. How can I help? ", ""]
    assert SmallTalk("gracias", "es").said("¡Gracias! ") == "¡De nada! "
    assert SmallTalk("goodbye, see you", "en").said("Goodbye, see you!") == ("Goodbye!")
    # Words of the model's own stay, and an echo after them is left out.
    assert SmallTalk("hello", "en").said("Hello! How can I help?") == (
        "Hello! How can I help?"
    )
    asked = SmallTalk("how are you doing today?", "en")
    said = [
        asked.said(s) for s in ("I'm doing well, thank you! ", "How are you today?")
    ]
    assert said == ["I'm doing well, thank you! ", ""]


async def test_thanks_said_back_is_answered_with_you_are_welcome(
    client: LLMClient, scripted_llm: ScriptedLLMServer
) -> None:
    """0.5B answered "thank you!" with "Thank you!"."""
    scripted_llm.script(Reply(content="Thank you!"))
    result = await ReplyLoop(client, LoopSettings(model="m", tool_router=True)).run(
        system_prompt="You are Jarvis.",
        history=[Message("user", "thank you!")],
        tools=TOOLS,
        host=make_host()[0],
        language="en",
    )
    assert result.text == "You're welcome!"
