"""Speech clean-up and redaction."""

from __future__ import annotations

import pytest

from custom_components.jarvis.engine.redact import redact
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
    ],
)
def test_redact(text: str, redacted: str) -> None:
    assert redact(text) == redacted
