"""Numbers said in words, as digits."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.spoken_numbers import in_digits


@pytest.mark.parametrize(
    ("said", "language", "in_digits_"),
    [
        ("kitchen lights at fifty percent", "en", "kitchen lights at 50 percent"),
        ("set it to Twenty-One degrees", "en", "set it to 21 degrees"),
        ("set it to twenty one degrees", "en", "set it to 21 degrees"),
        ("auf einundzwanzig Grad", "de", "auf 21 Grad"),
        ("Licht auf fünfzig Prozent", "de-CH", "Licht auf 50 Prozent"),
        ("al treinta y cinco por ciento", "es", "al 35 por ciento"),
        # Typed without the accent.
        ("a dieciseis grados", "es", "a 16 grados"),
        ("à soixante-dix pour cent", "fr", "à 70 pour cent"),
        ("vingt et un degrés", "fr", "21 degrés"),
        ("a ventitré gradi", "it", "a 23 gradi"),
        ("op vijftig procent", "nl", "op 50 procent"),
        ("a vinte e um graus", "pt", "a 21 graus"),
        ("volume to zero", "en", "volume to 0"),
        # One is also the article; words inside others are not numbers.
        ("zet een lamp aan", "nl", "zet een lamp aan"),
        ("turn on the one in the kitchen", "en", "turn on the one in the kitchen"),
        ("the tent lights", "en", "the tent lights"),
        # A half is a level of fifty.
        ("lights at half brightness", "en", "lights at 50% brightness"),
        ("open the blind halfway", "en", "open the blind 50%"),
        ("baja la persiana a la mitad", "es", "baja la persiana a 50%"),
        ("fahr den Rollladen halb runter", "de", "fahr den Rollladen 50% runter"),
        ("the behalf lamp", "en", "the behalf lamp"),
        # A language Jarvis does not speak reads as English.
        ("fifty", "sv", "50"),
    ],
)
def test_number_words_are_digits(said: str, language: str, in_digits_: str) -> None:
    assert in_digits(said, language) == in_digits_
