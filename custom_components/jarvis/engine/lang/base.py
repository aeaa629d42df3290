"""What Jarvis needs to know of one language: its fixed replies and the words
of a reply to its questions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Language:
    """One language's words; each `engine/lang/<code>.py` holds one."""

    code: str

    # Fixed replies the engine speaks itself.
    llm_unavailable: str
    not_understood: str
    done: str
    remembered: str
    # A fact kept with its code, password or number replaced (`engine.redact`).
    remembered_without_secret: str
    forgotten: str
    nothing_to_forget: str
    stopped: str
    # A turn past its deadline that had said nothing yet.
    too_slow: str

    # Actions held for the user's yes: the question before, the reply after.
    # Infinitive phrases for "Shall I ...?", by verb, with {target} and {position}.
    to_do: Mapping[str, str]
    # What follows `done_actions`' "I have", by verb.
    did: Mapping[str, str]
    # How the last two items of a spoken list are joined, spaces included.
    list_and: str
    list_or: str
    # When the user's words fit several devices, with {choices}.
    which: str
    # With {actions}: `to_do` phrases joined with `list_and`.
    ask_actions: str
    # For actions without a verb of `to_do`: their English {action}, quoted.
    ask_described: str
    # With {actions}: `did` phrases.
    done_actions: str
    not_done: str
    # A held action that failed: no error text is ever spoken.
    failed_plain: str
    # A held action's entities, with {names}, vanished or changed before the yes.
    hold_gone: str
    hold_changed: str
    # Verbs that name what kind of device a command is for, by entity domain:
    # "open" is for a cover or valve, not a light that shares its name.
    verb_domains: Mapping[str, tuple[str, ...]]

    # Words of a reply to Jarvis's question ("Shall I unlock Front Door?"),
    # written as said; `engine.answers` folds case, accents and apostrophes.
    # A yes: "yes", "go ahead".
    yes: tuple[str, ...]
    # A refusal as an answer: "no", "cancel".
    no: tuple[str, ...]
    # A negation inside a sentence: "don't", "not". Beats any yes.
    negations: tuple[str, ...]
    # Doubt or a question about the question: "maybe", "not sure", "what do you mean".
    hedges: tuple[str, ...]
    # Words that open a question: "which", "who".
    questions: tuple[str, ...]
    # What may come with an answer without changing it: "please", "thanks".
    polite: tuple[str, ...]
    # Sounds and small words that say nothing: "um", "well".
    fillers: tuple[str, ...]

    # Secrets, hidden by `engine.redact` wherever text leaves Jarvis. The names
    # of numeric secrets: "code", "PIN" (a name of four letters or more also
    # ends compounds: "Alarmcode", "Türcode"); what follows them is hidden when
    # it is a number, in digits or words ("four three two one").
    secret_codes: tuple[str, ...]
    # The names of secrets of any shape: "password"; the word after them is hidden.
    secret_passwords: tuple[str, ...]
    # Words between a secret's name and the secret: "is", "was".
    secret_links: tuple[str, ...]
    # Number words, including the parts of compound ones ("veinti" of
    # "veinticuatro") and forms that lose a vowel in compounds ("vent" of "ventuno").
    number_words: tuple[str, ...]
    # What joins number words: "and" of "one hundred and five", "und" of
    # "einundzwanzig".
    number_joiners: tuple[str, ...]


def words(text: str) -> tuple[str, ...]:
    """A word list written as one comma-separated string, to keep packs short."""
    return tuple(word.strip() for word in text.split(","))
