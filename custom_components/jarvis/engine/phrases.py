"""Fixed replies the engine speaks itself, in the user's language."""

from __future__ import annotations

from collections.abc import Mapping

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
