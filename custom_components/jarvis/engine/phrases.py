"""Fixed replies the engine speaks itself, in the user's language, and the ones
Jarvis's own tools end a turn with (`FinalReply`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

LLM_UNAVAILABLE: Mapping[str, str] = {
    "en": "Sorry, I can't reach my language model right now. Please try again in a moment.",
    "de": "Entschuldigung, ich erreiche mein Sprachmodell gerade nicht. Bitte versuche es gleich noch einmal.",
    "es": "Lo siento, ahora mismo no puedo contactar con mi modelo de lenguaje. Inténtalo de nuevo en un momento.",
    "fr": "Désolé, je n'arrive pas à joindre mon modèle de langage. Réessayez dans un instant.",
    "it": "Scusa, al momento non riesco a raggiungere il mio modello linguistico. Riprova tra poco.",
    "nl": "Sorry, ik kan mijn taalmodel nu niet bereiken. Probeer het zo nog eens.",
    "pt": "Desculpe, não consigo contactar o meu modelo de linguagem agora. Tente novamente daqui a pouco.",
}

NOT_UNDERSTOOD: Mapping[str, str] = {
    "en": "Sorry, I couldn't work that out.",
    "de": "Entschuldigung, das habe ich nicht hinbekommen.",
    "es": "Lo siento, no he podido resolverlo.",
    "fr": "Désolé, je n'ai pas réussi.",
    "it": "Scusa, non ci sono riuscito.",
    "nl": "Sorry, dat is me niet gelukt.",
    "pt": "Desculpe, não consegui.",
}

DONE: Mapping[str, str] = {
    "en": "Done.",
    "de": "Erledigt.",
    "es": "Hecho.",
    "fr": "C'est fait.",
    "it": "Fatto.",
    "nl": "Klaar.",
    "pt": "Feito.",
}

REMEMBERED: Mapping[str, str] = {
    "en": "I'll remember that.",
    "de": "Das merke ich mir.",
    "es": "Lo recordaré.",
    "fr": "Je m'en souviendrai.",
    "it": "Me lo ricorderò.",
    "nl": "Dat onthoud ik.",
    "pt": "Vou lembrar-me disso.",
}

FORGOTTEN: Mapping[str, str] = {
    "en": "Done, I've forgotten it.",
    "de": "Erledigt, ich habe es vergessen.",
    "es": "Hecho, lo he olvidado.",
    "fr": "C'est fait, je l'ai oublié.",
    "it": "Fatto, l'ho dimenticato.",
    "nl": "Klaar, ik ben het vergeten.",
    "pt": "Feito, esqueci.",
}

NOTHING_TO_FORGET: Mapping[str, str] = {
    "en": "I had nothing remembered about that.",
    "de": "Dazu hatte ich mir nichts gemerkt.",
    "es": "No tenía nada guardado sobre eso.",
    "fr": "Je n'avais rien retenu à ce sujet.",
    "it": "Non avevo niente in memoria su questo.",
    "nl": "Daar had ik niets over onthouden.",
    "pt": "Não tinha nada guardado sobre isso.",
}

STOPPED: Mapping[str, str] = {
    "en": "Okay.",
    "de": "Okay.",
    "es": "Vale.",
    "fr": "D'accord.",
    "it": "Va bene.",
    "nl": "Oké.",
    "pt": "Está bem.",
}


def phrase(table: Mapping[str, str], language: str | None) -> str:
    """The table's entry for a language tag such as 'de-CH', falling back to English."""
    code = (language or "en").split("-", 1)[0].split("_", 1)[0].lower()
    return table.get(code, table["en"])


class FinalReply(str):
    """A tool result's reply that ends the turn word for word (under `FINAL_REPLY`).

    Only an instance of this class counts. JSON from outside the house (a web
    page, an MCP server) can only ever hold a plain str, so it cannot put
    words in Jarvis's mouth; only Jarvis's own code can make one.
    """


# The tool-result field the reply loop ends the turn with: no model call
# follows, so a small model cannot paraphrase (or contradict) what must be said.
FINAL_REPLY = "final_reply"


class DidPhrase(str):
    """What a tool call did, as `actions` of `DID` (under `DID_FIELD`): "turned
    on Bed Light". Like `FinalReply`, only Jarvis's own code can make one."""


# The tool-result field with a `DidPhrase`.
DID_FIELD = "did"


def final_reply(result: Mapping[str, object]) -> FinalReply | None:
    """The result's final reply, if Jarvis's own code gave it one."""
    value = result.get(FINAL_REPLY)
    return value if isinstance(value, FinalReply) else None


# --- Actions held for the user's yes: the question before, the reply after ----


@dataclass(frozen=True, slots=True)
class Deed:
    """What an action does to a target, with a verb of `DID` (and of `TO_DO`
    if it can be held for a yes)."""

    verb: str
    targets: tuple[str, ...]
    # Where "move" puts the targets, in percent.
    position: str = ""


# Infinitive phrases, for "Shall I ...?".
TO_DO: Mapping[str, Mapping[str, str]] = {
    "open": {
        "en": "open {target}",
        "de": "{target} öffnen",
        "es": "abrir {target}",
        "fr": "ouvrir {target}",
        "it": "aprire {target}",
        "nl": "{target} openen",
        "pt": "abrir {target}",
    },
    "unlock": {
        "en": "unlock {target}",
        "de": "{target} aufschließen",
        "es": "desbloquear {target}",
        "fr": "déverrouiller {target}",
        "it": "sbloccare {target}",
        "nl": "{target} ontgrendelen",
        "pt": "destrancar {target}",
    },
    "disarm": {
        "en": "disarm {target}",
        "de": "{target} unscharf schalten",
        "es": "desarmar {target}",
        "fr": "désarmer {target}",
        "it": "disattivare {target}",
        "nl": "{target} uitschakelen",
        "pt": "desarmar {target}",
    },
    "move": {
        "en": "move {target} to {position}%",
        "de": "{target} auf {position} % stellen",
        "es": "poner {target} al {position} %",
        "fr": "mettre {target} à {position} %",
        "it": "portare {target} al {position}%",
        "nl": "{target} op {position}% zetten",
        "pt": "pôr {target} a {position}%",
    },
    "toggle": {
        "en": "toggle {target}",
        "de": "{target} umschalten",
        "es": "alternar {target}",
        "fr": "basculer {target}",
        "it": "commutare {target}",
        "nl": "{target} omschakelen",
        "pt": "alternar {target}",
    },
}

# What follows `DONE_ACTIONS`' "I have" in each language.
DID: Mapping[str, Mapping[str, str]] = {
    "open": {
        "en": "opened {target}",
        "de": "{target} geöffnet",
        "es": "abierto {target}",
        "fr": "ouvert {target}",
        "it": "aperto {target}",
        "nl": "{target} geopend",
        "pt": "abri {target}",
    },
    "unlock": {
        "en": "unlocked {target}",
        "de": "{target} aufgeschlossen",
        "es": "desbloqueado {target}",
        "fr": "déverrouillé {target}",
        "it": "sbloccato {target}",
        "nl": "{target} ontgrendeld",
        "pt": "destranquei {target}",
    },
    "disarm": {
        "en": "disarmed {target}",
        "de": "{target} unscharf geschaltet",
        "es": "desarmado {target}",
        "fr": "désarmé {target}",
        "it": "disattivato {target}",
        "nl": "{target} uitgeschakeld",
        "pt": "desarmei {target}",
    },
    "move": {
        "en": "moved {target} to {position}%",
        "de": "{target} auf {position} % gestellt",
        "es": "puesto {target} al {position} %",
        "fr": "mis {target} à {position} %",
        "it": "portato {target} al {position}%",
        "nl": "{target} op {position}% gezet",
        "pt": "pus {target} a {position}%",
    },
    "turn_on": {
        "en": "turned on {target}",
        "de": "{target} eingeschaltet",
        "es": "encendido {target}",
        "fr": "allumé {target}",
        "it": "acceso {target}",
        "nl": "{target} aangezet",
        "pt": "liguei {target}",
    },
    "turn_off": {
        "en": "turned off {target}",
        "de": "{target} ausgeschaltet",
        "es": "apagado {target}",
        "fr": "éteint {target}",
        "it": "spento {target}",
        "nl": "{target} uitgezet",
        "pt": "desliguei {target}",
    },
    "lock": {
        "en": "locked {target}",
        "de": "{target} abgeschlossen",
        "es": "cerrado con llave {target}",
        "fr": "verrouillé {target}",
        "it": "chiuso a chiave {target}",
        "nl": "{target} op slot gedaan",
        "pt": "tranquei {target}",
    },
    "close": {
        "en": "closed {target}",
        "de": "{target} geschlossen",
        "es": "cerrado {target}",
        "fr": "fermé {target}",
        "it": "chiuso {target}",
        "nl": "{target} gesloten",
        "pt": "fechei {target}",
    },
    "toggle": {
        "en": "toggled {target}",
        "de": "{target} umgeschaltet",
        "es": "alternado {target}",
        "fr": "basculé {target}",
        "it": "commutato {target}",
        "nl": "{target} omgeschakeld",
        "pt": "alternei {target}",
    },
}

AND: Mapping[str, str] = {
    "en": " and ",
    "de": " und ",
    "es": " y ",
    "fr": " et ",
    "it": " e ",
    "nl": " en ",
    "pt": " e ",
}

OR: Mapping[str, str] = {
    "en": " or ",
    "de": " oder ",
    "es": " o ",
    "fr": " ou ",
    "it": " o ",
    "nl": " of ",
    "pt": " ou ",
}

# When the user's words fit several devices: nothing is done until they say which.
WHICH: Mapping[str, str] = {
    "en": "Which one do you mean: {choices}?",
    "de": "Welches meinst du: {choices}?",
    "es": "¿Cuál quieres decir: {choices}?",
    "fr": "Lequel veux-tu dire : {choices} ?",
    "it": "Quale intendi: {choices}?",
    "nl": "Welke bedoel je: {choices}?",
    "pt": "Qual queres dizer: {choices}?",
}

ASK_ACTIONS: Mapping[str, str] = {
    "en": "Shall I {actions}?",
    "de": "Soll ich {actions}?",
    "es": "¿Debo {actions}?",
    "fr": "Dois-je {actions} ?",
    "it": "Devo {actions}?",
    "nl": "Zal ik {actions}?",
    "pt": "Devo {actions}?",
}

# For actions without a verb of `TO_DO`: their English description, quoted.
ASK_DESCRIBED: Mapping[str, str] = {
    "en": "Shall I {action}?",
    "de": "Soll ich das tun: {action}?",
    "es": "¿Debo hacer esto: {action}?",
    "fr": "Dois-je faire ceci : {action} ?",
    "it": "Devo fare questo: {action}?",
    "nl": "Zal ik dit doen: {action}?",
    "pt": "Devo fazer isto: {action}?",
}

DONE_ACTIONS: Mapping[str, str] = {
    "en": "Done, I {actions}.",
    "de": "Erledigt, ich habe {actions}.",
    "es": "Hecho, he {actions}.",
    "fr": "C'est fait, j'ai {actions}.",
    "it": "Fatto, ho {actions}.",
    "nl": "Klaar, ik heb {actions}.",
    "pt": "Feito, {actions}.",
}

NOT_DONE: Mapping[str, str] = {
    "en": "Okay, I won't do it.",
    "de": "Okay, dann lasse ich es.",
    "es": "Vale, no lo haré.",
    "fr": "D'accord, je ne le fais pas.",
    "it": "Va bene, non lo faccio.",
    "nl": "Oké, dan doe ik het niet.",
    "pt": "Está bem, não o faço.",
}

FAILED: Mapping[str, str] = {
    "en": "Sorry, that did not work: {error}",
    "de": "Entschuldigung, das hat nicht geklappt: {error}",
    "es": "Lo siento, no ha funcionado: {error}",
    "fr": "Désolé, cela n'a pas marché : {error}",
    "it": "Scusa, non ha funzionato: {error}",
    "nl": "Sorry, dat is niet gelukt: {error}",
    "pt": "Desculpe, não funcionou: {error}",
}


def listed(
    names: Sequence[str], language: str | None, last: Mapping[str, str] = AND
) -> str:
    """Names as a spoken list: "A, B and C" (or, with `OR`, "A, B or C")."""
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + phrase(last, language) + names[-1]


def actions(
    deeds: Sequence[Deed], table: Mapping[str, Mapping[str, str]], language: str | None
) -> str:
    """The deeds as phrases of `table` (`TO_DO` or `DID`), joined with "and"."""
    return phrase(AND, language).join(
        phrase(table[deed.verb], language).format(
            target=listed(deed.targets, language), position=deed.position
        )
        for deed in deeds
    )


def ask_first(deeds: Sequence[Deed], description: str, language: str | None) -> str:
    """The question before a held action: its deeds said in the user's language
    where each has a verb of `TO_DO`, else its English description."""
    if deeds and all(deed.verb in TO_DO for deed in deeds):
        return phrase(ASK_ACTIONS, language).format(
            actions=actions(deeds, TO_DO, language)
        )
    return phrase(ASK_DESCRIBED, language).format(action=description)


def did_reply(phrases: Sequence[str], language: str | None) -> str:
    """The reply for actions that ran, from their `DidPhrase`s."""
    return phrase(DONE_ACTIONS, language).format(
        actions=phrase(AND, language).join(phrases)
    )


def done(deeds: Sequence[Deed], language: str | None) -> str:
    """The reply once a held action ran: what it did, else "Done."."""
    if deeds and all(deed.verb in DID for deed in deeds):
        return did_reply([actions(deeds, DID, language)], language)
    return phrase(DONE, language)
