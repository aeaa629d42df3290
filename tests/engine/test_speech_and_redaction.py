"""Speech clean-up and redaction."""

from __future__ import annotations

import time

import pytest

from custom_components.jarvis.engine.redact import (
    public_url,
    redact,
    redact_fact,
    redact_turn,
    user_said,
)
from custom_components.jarvis.engine.speech import clean_for_speech


@pytest.mark.parametrize(
    ("text", "spoken"),
    [
        ("**Done.** The light is *on*.", "Done. The light is on."),
        ("## Status\n- Kitchen: on\n- Hall: off", "Status\nKitchen: on\nHall: off"),
        (
            "See https://www.example.com/page?x=1 for more.",
            "See a link to example.com for more.",
        ),
        ("Read [the manual](https://docs.example.org/a).", "Read the manual."),
        ("Run `ls` now.\n```bash\nrm -rf /\n```\nDone.", "Run ls now.\n \nDone."),
        ("The lamp_post light is on. ", "The lamp_post light is on. "),
    ],
)
def test_clean_for_speech(text: str, spoken: str) -> None:
    assert clean_for_speech(text) == spoken


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("mail anna.smith+home@example.co.uk now", "mail [email] now"),
        ("call me at +49 170 1234567 please", "call me at [phone] please"),
        ("card 4111 1111 1111 1111 expires", "card [card] expires"),
        ("key sk-abcdefghijklmnop1234 here", "key [secret] here"),
        ("Authorization: Bearer abc.def.ghijklmnop", "Authorization: Bearer [secret]"),
        ("my password is hunter2", "my password is [secret]"),
        ("token=ghp_ABCDEFGHIJKLMNOPQRST12", "token=[secret]"),
        ("set the heating to 21.5 at 7:30", "set the heating to 21.5 at 7:30"),
        ("turn on lights 1 2 and 3", "turn on lights 1 2 and 3"),
        # Codes, PINs and passwords, named in each language, in digits or words.
        ("the alarm code is 4321", "the alarm code is [secret]"),
        (
            "the alarm code is four three two one, thanks",
            "the alarm code is [secret], thanks",
        ),
        (
            "the code for the front door is 12 34",
            "the code for the front door is [secret]",
        ),
        ("PIN 9876 please", "PIN [secret] please"),
        ("the passcode is alpha", "the passcode is [secret]"),
        ("code is one hundred and five ok", "code is [secret] ok"),
        ("der Code ist vier drei zwei eins", "der Code ist [secret]"),
        ("Der Alarmcode lautet einundzwanzig.", "Der Alarmcode lautet [secret]."),
        ("das Passwort ist Sonne", "das Passwort ist [secret]"),
        ("die PIN heißt dreißig zwölf", "die PIN heißt [secret]"),
        (
            "el código de la alarma es cuatro tres dos uno",
            "el código de la alarma es [secret]",
        ),
        ("la contraseña del wifi es hola123", "la contraseña del wifi es [secret]"),
        (
            "le code de l'alarme est quatre-vingt-dix-neuf",
            "le code de l'alarme est [secret]",
        ),
        ("le mot de passe est soleil", "le mot de passe est [secret]"),
        ("il codice dell'allarme è ventitré", "il codice dell'allarme è [secret]"),
        ("de pincode is vier drie twee een", "de pincode is [secret]"),
        ("het wachtwoord is zomer", "het wachtwoord is [secret]"),
        ("o código do alarme é quatro três dois um", "o código do alarme é [secret]"),
        ("a senha é sol", "a senha é [secret]"),
        # As Home Assistant logs tool arguments.
        (
            "HassDisarm({'code': '4321', 'name': 'Alarm'})",
            "HassDisarm({'code': '[secret]', 'name': 'Alarm'})",
        ),
        # IBANs (checked), URL credentials.
        ("my IBAN is DE89 3704 0044 0532 0130 00 please", "my IBAN is [iban] please"),
        ("GB82WEST12345698765432", "[iban]"),
        ("order AB12 CDEF GHIJ KL now", "order AB12 CDEF GHIJ KL now"),
        ("https://admin:hunter2@nas.local/mcp", "https://[secret]@nas.local/mcp"),
        # Named, but no secret follows.
        ("the code is in the drawer", "the code is in the drawer"),
        ("spin 3 times", "spin 3 times"),
    ],
)
def test_redact(text: str, redacted: str) -> None:
    assert redact(text) == redacted


def test_redaction_stays_fast_on_long_texts() -> None:
    """Logs and tool results can be long; a named secret costs backtracking."""
    text = "the code of the day. " * 5000 + "eins" * 5000
    started = time.perf_counter()
    redact(text)
    assert time.perf_counter() - started < 1.0


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:pass@nas.local:8443/mcp?x=1", "https://nas.local:8443/mcp?x=1"),
        ("https://token@nas.local/mcp", "https://nas.local/mcp"),
        ("http://nas.local/mcp", "http://nas.local/mcp"),
    ],
)
def test_public_url(url: str, shown: str) -> None:
    assert public_url(url) == shown


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-24T11:18:33.123456+00:00",
        "at 2026-11-24 11:18:33",
        "took 11:18:33.123456",
        "the bins go out on 24.11.2026",
        "on 11/24/26 at noon",
        "from 3-12-2027 to 31.12.2027",
    ],
)
def test_dates_and_clock_times_are_not_phone_numbers(text: str) -> None:
    """Turn records carry their time: redacted, `make say` could not read it."""
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "first_token_s: 0.123456789, duration_s: 12.3456789",
        "first_token_s: 0.4111111111111111",
        "Home Assistant 2026.11.0 and 2024.11.3",
        "server at 192.168.1.10 and 10.0.0.138",
    ],
)
def test_decimals_versions_and_addresses_are_not_phone_numbers(text: str) -> None:
    """Logs and diagnostics are read to find faults: these must stay."""
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    ["on 12.34.56 call", "13.13.2027", "0170 1234567"],
)
def test_what_is_no_date_is_still_a_phone_number(text: str) -> None:
    assert "[phone]" in redact(text)


# A fact to remember: a number no word names is a secret unless it is plainly
# something else.
@pytest.mark.parametrize(
    ("fact", "kept"),
    [
        ("4321 for the garage", "[secret] for the garage"),
        ("the garage is 4 3 2 1", "the garage is [secret]"),
        ("the side gate is 12-34", "the side gate is [secret]"),
        ("the garage is four three two one", "the garage is [secret]"),
        (
            "the safe opens with twelve thirty four fifty six",
            "the safe opens with [secret]",
        ),
        (
            "locker 4711 on floor 2 since 2019",
            "locker [secret] on floor 2 since 2019",
        ),
        ("98765 für die Haustür", "[secret] für die Haustür"),
        ("die Garage ist vier drei zwei eins", "die Garage ist [secret]"),
        ("la caja fuerte es nueve ocho siete seis", "la caja fuerte es [secret]"),
        ("el garaje es 2580", "el garaje es [secret]"),
        ("le portail c'est 7391", "le portail c'est [secret]"),
        ("il garage è nove otto sette sei", "il garage è [secret]"),
        ("de schuur is 7 3 9 1", "de schuur is [secret]"),
        ("o cadeado é 4 4 5 5", "o cadeado é [secret]"),
    ],
)
def test_a_number_no_word_names_is_kept_out_of_a_fact(fact: str, kept: str) -> None:
    assert redact_fact(fact) == kept


@pytest.mark.parametrize(
    "fact",
    [
        # Years, dates and clock times.
        "I was born in 1987",
        "my flight is on 12 March 2027",
        "my flight is on March 12 2027",
        "the bins go out on 2027-03-12",
        "the bins go out on 12.03.2027",
        "the meeting is at 14:30",
        "der Müll kommt um 1430 Uhr",
        "we moved here in two thousand and twenty six",
        # Quantities and measures, decimals.
        "I eat 2000 calories a day",
        "the heater draws 1500 W",
        "I walk 3000 steps",
        "ich laufe 3000 Schritte",
        "la bici costa 1200 euro",
        "the battery is at 20 %",
        "the rent is €1500",
        "the pool holds 1,500 litres",
        "pi is 3.1415",
        "one hundred twenty five guests came",
        "quatre-vingt-dix-neuf",
        # Short numbers, entity ids.
        "set the thermostat to 21",
        "lights 1 2 and 3 are in the hall",
        "sensor.garage_1234 is the garage's sensor",
    ],
)
def test_a_number_that_is_plainly_something_else_stays(fact: str) -> None:
    assert redact_fact(fact) == fact


def test_log_lines_keep_their_numbers() -> None:
    """Ports, line numbers and token counts: the rule is for facts, not logs."""
    line = 'File "x.py", line 1234, nas.local:11434 took 2048 tokens'
    assert redact(line) == line
    assert redact_turn(line) == line


def test_the_numbers_the_user_said_are_hidden_in_their_turn() -> None:
    with user_said("remember 4321 for the garage, born 1987, vier drei zwei eins"):
        assert redact_turn("fact: '4 3 2 1', kept 4321, 1987, 14321") == (
            "fact: '[secret]', kept [secret], 1987, 14321"
        )
        assert redact_turn("Vier drei  zwei eins") == "[secret]"
        with user_said("and 2580"):
            assert redact_turn("4321 or 2580") == "[secret] or [secret]"
    assert redact_turn("4321") == "4321"
