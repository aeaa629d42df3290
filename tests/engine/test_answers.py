"""Yes, no, unclear or a new request: the user's reply to "Shall I unlock Front
Door?", read without the model in each language Jarvis speaks."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.answers import Answer, classify_answer

CASES: dict[str, list[tuple[str, Answer]]] = {
    "en": [
        ("yes", "yes"),
        ("Yes please", "yes"),
        ("sure, go ahead", "yes"),
        ("do it", "yes"),
        ("ok", "yes"),
        ("Yes, please?", "yes"),
        ("yes, unlock it now", "yes"),
        ("no", "no"),
        ("nope", "no"),
        ("don’t do it", "no"),
        ("dont", "no"),
        ("do not", "no"),
        ("I didn't say yes", "no"),
        ("I didnt say yes", "no"),
        ("not now, ok?", "no"),
        ("no way", "no"),
        ("cancel", "no"),
        ("stop", "no"),
        ("yes, don't", "no"),
        ("I'm not sure", "unclear"),
        ("maybe", "unclear"),
        ("wait, which one?", "unclear"),
        ("which door?", "unclear"),
        ("what?", "unclear"),
        ("huh", "unclear"),
        ("ok?", "unclear"),
        ("yes no", "unclear"),
        ("um", "unclear"),
        ("turn on the kitchen light", "other"),
        ("what time is it", "other"),
        ("what's the weather?", "other"),
        ("ok turn on the kitchen light", "other"),
    ],
    "de": [
        ("ja", "yes"),
        ("Ja bitte.", "yes"),
        ("klar, mach das", "yes"),
        ("in Ordnung", "yes"),
        ("nein, lieber nicht", "no"),
        ("nein danke", "no"),
        ("ja, aber nicht jetzt", "no"),
        ("abbrechen", "no"),
        ("weiß nicht", "unclear"),
        ("Vielleicht", "unclear"),
        ("welche Tür?", "unclear"),
        ("ja nein", "unclear"),
        ("mach das Licht in der Küche an", "other"),
        ("wie spät ist es", "other"),
    ],
    "es": [
        ("sí", "yes"),
        ("sí, ábrela", "yes"),
        ("¡Claro!", "yes"),
        ("vale, hazlo", "yes"),
        ("no, gracias", "no"),
        ("no lo hagas", "no"),
        ("sí, no lo hagas", "no"),
        ("cancela", "no"),
        ("¿quién es?", "unclear"),
        ("¿cuál?", "unclear"),
        ("no sé", "unclear"),
        ("quizás", "unclear"),
        ("enciende la luz de la cocina", "other"),
        ("¿qué tiempo hace mañana en Madrid?", "other"),
    ],
    "fr": [
        ("oui", "yes"),
        ("oui vas-y", "yes"),
        ("d’accord, fais-le", "yes"),
        ("oui s'il vous plaît", "yes"),
        ("non merci", "no"),
        ("ne l'ouvre pas", "no"),
        ("annule", "no"),
        ("peut-être", "unclear"),
        ("je ne sais pas", "unclear"),
        ("laquelle ?", "unclear"),
        ("attends, quoi ?", "unclear"),
        ("allume la lumière du salon", "other"),
        ("quelle heure est-il maintenant à Paris", "other"),
    ],
    "it": [
        ("sì", "yes"),
        ("sì, certo", "yes"),
        ("va bene, procedi", "yes"),
        ("d'accordo", "yes"),
        ("no", "no"),
        ("no, grazie", "no"),
        ("non farlo", "no"),
        ("annulla", "no"),
        ("forse", "unclear"),
        ("non lo so", "unclear"),
        ("quale porta?", "unclear"),
        ("sì no", "unclear"),
        ("accendi la luce in cucina", "other"),
    ],
    "nl": [
        ("ik weet het niet", "unclear"),
        ("ja", "yes"),
        ("ja hoor", "yes"),
        ("doe maar", "yes"),
        ("is goed, dank je", "yes"),
        ("nee", "no"),
        ("niet doen", "no"),
        ("nee, laat maar", "no"),
        ("misschien", "unclear"),
        ("geen idee", "unclear"),
        ("welke deur?", "unclear"),
        ("wacht even", "unclear"),
        ("zet het licht in de keuken aan", "other"),
        ("hoe laat is het nu", "other"),
    ],
    "pt": [
        ("sim", "yes"),
        ("sim, pode", "yes"),
        ("claro, obrigado", "yes"),
        ("pode ser", "yes"),
        ("não", "no"),
        ("não, obrigada", "no"),
        ("não abras", "no"),
        ("cancela", "no"),
        ("talvez", "unclear"),
        ("não sei", "unclear"),
        ("qual porta?", "unclear"),
        ("espera, quem é?", "unclear"),
        ("liga a luz da cozinha", "other"),
    ],
}


@pytest.mark.parametrize(
    ("language", "text", "answer"),
    [
        (language, text, answer)
        for language, cases in CASES.items()
        for text, answer in cases
    ],
)
def test_classify_answer(language: str, text: str, answer: Answer) -> None:
    assert classify_answer(text, language) == answer


@pytest.mark.parametrize(
    ("text", "language", "answer"),
    [
        # People answer "ok" or "yes" in any language.
        ("ok", "de", "yes"),
        ("yes please", "fr", "yes"),
        ("ja", "en", "yes"),
        ("nein", "es", "no"),
        # A regional tag, and a language Jarvis does not speak.
        ("sí, ábrela", "es-MX", "yes"),
        ("vielleicht", "sv", "unclear"),
        ("non", None, "no"),
        # Question words count in the user's language and English only.
        ("que", "es", "unclear"),
        ("que", "en", "other"),
    ],
)
def test_any_language(text: str, language: str | None, answer: Answer) -> None:
    assert classify_answer(text, language) == answer


def test_every_language_has_its_cases() -> None:
    assert all(len(cases) >= 10 for cases in CASES.values())
    assert {answer for cases in CASES.values() for _, answer in cases} == {
        "yes",
        "no",
        "unclear",
        "other",
    }
