"""The persona's name follows the wake word: woken by "okay nabu", it is Nabu.

People name the assistant when they wake it; a butler who answers to "Hey
Mycroft" and calls himself Jarvis sounds broken.
"""

from __future__ import annotations

import re

from .lang import every

DEFAULT_NAME = "Jarvis"
# Words a wake phrase puts before the name ("okay nabu", "hey mycroft").
_CALLS = frozenset(every(lambda pack: pack.wake_calls))
# Model versions in wake-word ids: "hey_jarvis_v0.1", "alexa_v0.1".
_VERSION_RE = re.compile(r"[\s_-]+v?\d+(?:\.\d+)*$", re.IGNORECASE)
_SPLIT_RE = re.compile(r"[\s_\-,.!]+")


def persona_name(wake_word: str | None) -> str | None:
    """The name in a wake phrase or wake-word id, None if it names no one.

    "Okay Nabu" and "okay_nabu" give "Nabu", "hey_jarvis_v0.1" gives
    "Jarvis", "Alexa" gives "Alexa".
    """
    if not wake_word:
        return None
    words = [w for w in _SPLIT_RE.split(_VERSION_RE.sub("", wake_word.strip())) if w]
    while words and words[0].lower() in _CALLS:
        words.pop(0)
    if not words:
        return None
    # Keep a deliberate spelling ("GLaDOS"); capitalise plain words.
    return " ".join(
        word.capitalize() if word.islower() or word.isupper() else word
        for word in words
    )


def with_name(prompt: str, name: str | None) -> str:
    """The persona prompt calling itself `name` where it says "Jarvis".

    A prompt that never says "Jarvis" was written for another persona, and is
    left as its author wrote it.
    """
    if not name or name == DEFAULT_NAME:
        return prompt
    return re.sub(rf"\b{DEFAULT_NAME}\b", lambda _: name, prompt)
