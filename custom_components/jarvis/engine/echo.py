"""Small talk the model only said back: 0.5B answered "thank you!" with
"Thank you!", and "good morning jarvis, how are you this morning?" with the
same words. Such a reply is answered in Jarvis's words instead: a "you're
welcome" to thanks, a goodbye to a farewell, a greeting to anything else.
"""

from __future__ import annotations

from dataclasses import dataclass

from .lang import language_pack
from .text import folded_words, mentions, words

# Words shorter than this meet only themselves: "thank" meets "thanks",
# "you" not "your".
_STEM_MIN = 4
# The share of a sentence's words that, being the user's, make it an echo:
# "Thank you for your help!" to "thanks so much for your help" has four of
# five. A greeting back ("Hello!" to "hello") is too short to be one.
_ECHO_SHARE = 0.6
_ECHO_MIN_WORDS = 3


def echoes(sentence: str, request: str, language: str | None) -> bool:
    """Whether a sentence only says the user's words back: mostly theirs,
    or thanks for their thanks."""
    thanks = language_pack(language).thanks
    if mentions(request, thanks) and mentions(sentence, thanks):
        return True
    said = folded_words(request)
    spoken = words(sentence)
    shared = [word for word in spoken if _is_said(word, said)]
    return len(spoken) >= _ECHO_MIN_WORDS and len(shared) >= _ECHO_SHARE * len(spoken)


def _is_said(word: str, said: set[str]) -> bool:
    if word in said:
        return True
    return len(word) >= _STEM_MIN and any(
        len(other) >= _STEM_MIN and (other.startswith(word) or word.startswith(other))
        for other in said
    )


def small_talk_answer(request: str, language: str | None) -> str:
    """Jarvis's answer to small talk: to thanks, to a farewell, or else."""
    pack = language_pack(language)
    if mentions(request, pack.thanks):
        return pack.welcome
    if mentions(request, pack.farewells):
        return pack.farewell
    return pack.greeted


@dataclass
class SmallTalk:
    """The sentences of a reply to small talk, as they are said: Jarvis's
    answer for the first that says the user's words back, unless the model
    said words of its own before it, and the later ones left out ("Good
    morning, Jarvis! How are you this morning?")."""

    request: str
    language: str | None
    answered: bool = False

    def said(self, sentence: str) -> str:
        """The sentence as it may be said."""
        if not echoes(sentence, self.request, self.language):
            self.answered = self.answered or bool(sentence.strip())
            return sentence
        if self.answered:
            return ""
        self.answered = True
        spaces = sentence[len(sentence.rstrip()) :]
        return small_talk_answer(self.request, self.language) + spaces
