"""What Jarvis needs to know of one language: its fixed replies and the words
of a reply to its questions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Language:
    """One language's words; each `engine/lang/<code>.py` holds one."""

    code: str
    # In English, for the model: "reply in Spanish" is followed more often
    # than "in the user's language" by small models.
    name: str

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
    # When a command names no device ("turn it off") and nothing said before
    # tells which.
    which_device: str
    # What an answer to `which` says beside the choice: "the one in the office".
    choice_links: tuple[str, ...]
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
    # What a to-do list holds, with {list} and {items} (joined by `list_and`),
    # and a list with nothing to do.
    list_items: str
    list_empty: str
    # What Jarvis cannot do to a device of the wrong kind, with {action}: a
    # `to_do` phrase ("lock Garage Door").
    cannot: str
    # Where no exposed weather has a forecast: how to give Jarvis one.
    no_forecast: str
    # A question's state that none of the devices looked up is in, with
    # {state}: "Nothing is unlocked."
    none_in_state: str
    # A name the user said that no device has, with {name}: the fallback
    # when the model cannot say why every call failed.
    unknown_device: str
    # Verbs that name what kind of device a command is for, by entity domain:
    # "open" is for a cover or valve, not a light that shares its name.
    verb_domains: Mapping[str, tuple[str, ...]]
    # What a question asks to be measured, by sensor device class: "warm" of
    # "how warm is it in the kitchen?" asks for a temperature.
    measure_words: Mapping[str, tuple[str, ...]]
    # Verbs that put an item on a list but set other things too ("setze Milch
    # auf die Liste", "setze das Licht auf 40"): no sign of a to-do command,
    # yet, like `verb_domains["todo"]`, not part of an item.
    list_verbs: tuple[str, ...]
    # Words between a to-do item and the list it goes on: "to", "my" of "add
    # milk to my shopping list".
    list_links: tuple[str, ...]
    # What a to-do list is called, said after its name: "list" of "my
    # personal tasks list".
    list_nouns: tuple[str, ...]
    # Words that leave devices out of a command: "except", "but not". A call
    # is then not narrowed to the devices or places the request names.
    exceptions: tuple[str, ...]
    # What a command that names no device may say beside its on/off words
    # (`engine.referring`): words for what was just said or done ("it",
    # "them", "both"), verbs that name no action ("turn", "set") and small
    # words ("now", "too"). Never "everything": that names the whole home.
    referring: tuple[str, ...]
    # Pronouns written onto a verb: "la" of "apágala".
    clitics: tuple[str, ...]
    # What names every device of a place: "everything" of "turn everything
    # off in the office".
    everything: tuple[str, ...]
    # What says every device of a kind: "all" of "close all the windows".
    all_of: tuple[str, ...]
    # Which way a command turns a device ("on", "off"), a lock ("lock",
    # "unlock") or a cover or valve ("open", "close"), or a relative level
    # ("up", "down", as HA's HassSetVolumeRelative takes them; "brighter",
    # "dimmer" of lights; "warmer", "cooler" of thermostats and lights), or
    # a light's white ("warm_white", "cool_white"), or a vacuum or player
    # started or stopped ("start", "stop"): the words that say it
    # ("abre con llave" unlocks, though "abre" alone opens; "baja la
    # persiana" closes it).
    ways: Mapping[str, tuple[str, ...]]
    # A light's colours, by the English name HA's colour names know
    # ("red"), and a white that is no way of its own ("white").
    colours: Mapping[str, tuple[str, ...]]

    # What a reply claims of a device, checked against the home
    # (`engine.grounding`). Words by the state they claim; the first is
    # what Jarvis says when it puts a claim right: "locked": ("locked",).
    state_words: Mapping[str, tuple[str, ...]]
    # What names a home's one device of a domain by its kind: "the lock";
    # the lights' also what says them ("it's too dark in here").
    kind_words: Mapping[str, tuple[str, ...]]
    # What a question says to ask what a player plays: "what's playing".
    media_asks: tuple[str, ...]
    # What may stand between a device's name and its state: "is", "already".
    state_links: tuple[str, ...]
    # Of those, the ones that make a state a change just made: "been" of "has
    # been muted".
    changed_links: tuple[str, ...]
    # What may stand before a device's name: "the".
    articles: tuple[str, ...]
    # Words that leave a sentence's claims unsure or denied, beyond
    # `negations` and `hedges`: "if", "might"; "no" where it is not one of them.
    unsure: tuple[str, ...]
    # The truth said instead: a state, with {name} and {state}; an action the
    # turn did not do, with {name}.
    is_state: str
    not_changed: str

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
    # Number words that make a quantity, not a string of digits: "hundred",
    # "thousand" (also inside glued ones: "duemila").
    number_scales: tuple[str, ...]
    # What a number counts or measures when said after it, every form written
    # out: "calories", "steps", "euros". Symbols are in `UNIT_SYMBOLS`.
    number_units: tuple[str, ...]
    # What follows a number that is a level: "percent" of "70 percent".
    percent_words: tuple[str, ...]
    # What says a level of a half: "half" of "half brightness", "halfway".
    half_words: tuple[str, ...]
    # What says a small step: "a bit" of "open the blinds a bit", which
    # would otherwise open them all the way.
    a_bit: tuple[str, ...]
    # A day's forecast as Jarvis says it ("Tomorrow: rainy, from 8 °C to
    # 19 °C."), and its chance of rain ("30% chance of rain.").
    forecast_day: str
    forecast_rain: str
    # The days a request names by how far from today: 0 "today", 1
    # "tomorrow" (a forecast tells only the day asked).
    days_said: Mapping[int, tuple[str, ...]]
    # What parts a number's decimals when Jarvis says one: "." or ",".
    decimal_sign: str
    # The fields below are matched in every language at once: the user's
    # language is not known for sure, and people mix them ("ok", "stop").
    # Phrases are written as said, except where a comment says "patterns":
    # regular expressions, for optional parts ("remember(?:\s+that)?").

    # Said alone, these end the conversation: "stop", "never mind".
    stop: tuple[str, ...]
    # Patterns that ask Jarvis to keep a fact: "remember(?:\s+that)?".
    remember: tuple[str, ...]
    # Patterns that ask Jarvis to drop a fact: "forget(?:\s+about)?".
    forget: tuple[str, ...]
    # Patterns of a polite word before either: "please".
    memory_please: tuple[str, ...]
    # Words too common to tie a record or a fact to a request: "the", "my".
    common_words: tuple[str, ...]
    # Words that point to no tool: "the", "please".
    stopwords: tuple[str, ...]
    # Household verbs and topics, by the fragment of tool names they point to
    # (Home Assistant's intents, common MCP tools): "turnon": "switch", "on".
    tool_topics: Mapping[str, tuple[str, ...]]
    # Patterns of small talk said alone: "good (?:morning|night)", "thanks".
    small_talk: tuple[str, ...]
    # Greetings before an introduction: "hi" of "hi, my name is Tom".
    greetings: tuple[str, ...]
    # What comes before the user's name: "my name is".
    introductions: tuple[str, ...]
    # What may follow small talk: "there" of "hi there", "again".
    small_talk_tails: tuple[str, ...]
    # Small talk that thanks, and that takes leave; and what Jarvis says to
    # small talk where the model only said the user's words back (`echo`):
    # to thanks, to a farewell, to anything else ("hello", "how are you").
    thanks: tuple[str, ...]
    farewells: tuple[str, ...]
    welcome: str
    farewell: str
    greeted: str
    # Words that open a question rather than a command: "is", "what".
    question_starts: tuple[str, ...]
    # What asks to be told something inside a command: "tell me".
    tell_me: tuple[str, ...]
    # What makes a command a polite question: "can you" of "can you turn on
    # the lights?", which asks for an action, not to be told.
    polite_asks: tuple[str, ...]
    # What joins a command to the "tell me" after it: "and", "then".
    joiners: tuple[str, ...]
    # Words a wake phrase puts before the name: "hey" of "hey Jarvis".
    wake_calls: tuple[str, ...]


def words(text: str) -> tuple[str, ...]:
    """A word list written as one comma-separated string, to keep packs short."""
    return tuple(word.strip() for word in text.split(","))


# Units written the same in every language, case as written: what follows a
# number ("1500 W", "20 %") or, for the ones without letters, precedes it ("€1500").
UNIT_SYMBOLS = words(
    "%, ‰, °, °C, °F, €, $, £, ¥, ₹, W, kW, kWh, Wh, MWh, V, mV, A, mA, mAh, Hz, "
    "kHz, MHz, GHz, dB, dBm, lx, lm, K, Pa, hPa, kPa, bar, mbar, psi, ppm, ppb, "
    "µg, mg, g, kg, t, ml, cl, dl, l, L, m, cm, mm, km, m², m³, km/h, m/s, mph, "
    "s, ms, min, h, px, B, kB, KB, MB, GB, TB, Mbit, Mbps, Gbps, kbps, "
    "USD, EUR, GBP, CHF"
)
