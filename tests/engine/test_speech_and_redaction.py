"""Speech clean-up and redaction."""

from __future__ import annotations

import time

import pytest

from custom_components.jarvis.engine.redact import public_url, redact
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
    ["on 12.34.56 call", "13.13.2027", "0170 1234567"],
)
def test_what_is_no_date_is_still_a_phone_number(text: str) -> None:
    assert "[phone]" in redact(text)
