"""English."""

from .base import Language, words

LANGUAGE = Language(
    code="en",
    name="English",
    llm_unavailable=(
        "Sorry, I can't reach my language model right now. "
        "Please try again in a moment."
    ),
    not_understood="Sorry, I couldn't work that out.",
    done="Done.",
    remembered="I'll remember that.",
    remembered_without_secret="I'll remember that, but not the code or number in it: I don't keep those.",
    forgotten="Done, I've forgotten it.",
    nothing_to_forget="I had nothing remembered about that.",
    stopped="Okay.",
    too_slow="Sorry, that is taking me too long. Please try again.",
    to_do={
        "open": "open {target}",
        "unlock": "unlock {target}",
        "disarm": "disarm {target}",
        "move": "move {target} to {position}%",
        "toggle": "toggle {target}",
        "turn_on": "turn on {target}",
        "turn_off": "turn off {target}",
        "lock": "lock {target}",
        "close": "close {target}",
        "start": "start {target}",
        "pause": "pause {target}",
        "resume": "resume {target}",
        "next": "skip {target} to the next track",
        "previous": "take {target} back to the previous track",
        "dock": "send {target} back to its dock",
        "mute": "mute {target}",
        "unmute": "unmute {target}",
        "set": "set {target} to {position}%",
        "set_temperature": "set {target} to {position}",
        "set_volume": "set the volume of {target} to {position}%",
        "volume_up": "turn up the volume of {target}",
        "volume_down": "turn down the volume of {target}",
        "brighten": "brighten {target}",
        "dim": "dim {target}",
        "add": "add {item} to {target}",
        "complete": "check off {item} on {target}",
    },
    did={
        "open": "opened {target}",
        "unlock": "unlocked {target}",
        "disarm": "disarmed {target}",
        "move": "moved {target} to {position}%",
        "turn_on": "turned on {target}",
        "turn_off": "turned off {target}",
        "lock": "locked {target}",
        "close": "closed {target}",
        "toggle": "toggled {target}",
        "start": "started {target}",
        "pause": "paused {target}",
        "resume": "resumed {target}",
        "next": "skipped {target} to the next track",
        "previous": "took {target} back to the previous track",
        "dock": "sent {target} back to its dock",
        "mute": "muted {target}",
        "unmute": "unmuted {target}",
        "set": "set {target} to {position}%",
        "set_temperature": "set {target} to {position}",
        "set_volume": "set the volume of {target} to {position}%",
        "volume_up": "turned up the volume of {target}",
        "volume_down": "turned down the volume of {target}",
        "brighten": "brightened {target}",
        "dim": "dimmed {target}",
        "add": "added {item} to {target}",
        "complete": "checked off {item} on {target}",
    },
    list_and=" and ",
    list_or=" or ",
    which="Which one do you mean: {choices}?",
    which_device="Which device do you mean?",
    choice_links=words("one, in, on, at, from, of"),
    ask_actions="Shall I {actions}?",
    ask_described="Shall I {action}?",
    done_actions="Done, I {actions}.",
    not_done="Okay, I won't do it.",
    failed_plain="Sorry, that did not work.",
    hold_gone="{names} is no longer there, so I did nothing.",
    hold_changed="{names} changed in the meantime.",
    list_items="On {list}: {items}.",
    list_empty="There is nothing on {list}.",
    cannot="Sorry, I can't {action}.",
    no_forecast="I can't see a weather forecast: expose a weather entity to Assist.",
    none_in_state="Nothing is {state}.",
    unknown_device="Sorry, I don't know a device called {name}.",
    verb_domains={
        "cover": words("open, close, raise, lower, shut"),
        "valve": words("open, close, shut"),
        "lock": words("unlock, lock, unlatch"),
        "alarm_control_panel": words("arm, disarm"),
        "media_player": words("play, pause, mute, unmute, volume"),
        "vacuum": words("vacuum, clean, dock"),
        "todo": words("add, note down, jot down"),
    },
    measure_words={
        "temperature": words("temperature, warm, hot, cold, degrees"),
        "humidity": words("humidity, humid"),
        "battery": words("battery"),
    },
    list_verbs=words("put, write"),
    list_links=words("to, on, onto, in, into, my, the, our"),
    list_nouns=words("list, todo, to-do"),
    exceptions=words("except, apart from, but not, other than, besides"),
    referring=words(
        "it, them, that, those, this, these, both, all, one, turn, switch, set, make, put, change, raise, lower, increase, decrease, now, too, also, as, again, back, degrees"
    ),
    clitics=(),
    everything=words("everything"),
    all_of=words("all, every"),
    ways={
        # "on" and "off" alone too: "lights off", and "switch on or off" says both.
        "on": words("on, turn on, switch on, power on"),
        "off": words("off, turn off, switch off, power off, shut off, kill"),
        # "lock" is a noun too: "unlock the back door lock" says both ways,
        # so neither counts.
        "lock": words("lock, locked, lock up"),
        "unlock": words("unlock, unlocked, unlatch, unlatched"),
        "open": words("open, opened, raise, lift"),
        "close": words("close, closed, shut, lower"),
        "up": words("up, louder, increase, raise, higher"),
        "down": words("down, quieter, softer, decrease, lower"),
        "brighter": words("brighter, brighten, lighter, too dark"),
        "dimmer": words("dim, dimmer, darker, darken, too bright"),
        "warmer": words("warmer, hotter, warm up, heat up"),
        "cooler": words("cooler, colder, cool down"),
        "warm_white": words("warm white, soft white"),
        "cool_white": words("cool white, cold white, daylight"),
        "start": words("start, begin"),
        "stop": words("stop, halt"),
    },
    colours={
        "red": words("red"),
        "orange": words("orange"),
        "yellow": words("yellow"),
        "green": words("green"),
        "blue": words("blue"),
        "purple": words("purple"),
        "pink": words("pink"),
        "white": words("white"),
        "cyan": words("cyan"),
        "magenta": words("magenta"),
        "turquoise": words("turquoise"),
        "violet": words("violet"),
    },
    state_words={
        "on": words("on, switched on, turned on"),
        "off": words("off, switched off, turned off"),
        "open": words("open, opened"),
        "closed": words("closed, shut"),
        "locked": words("locked"),
        "unlocked": words("unlocked"),
        "playing": words("playing"),
        "paused": words("paused"),
        "muted": words("muted"),
        "unmuted": words("unmuted"),
    },
    media_asks=words("playing, song, track, music, listening"),
    kind_words={
        "lock": words("lock, door lock, smart lock"),
        "media_player": words("music, speaker, tv, television"),
        "climate": words("thermostat, heating, heater, air conditioning"),
        "fan": words("fan"),
        "light": words("light, lights, lamp, lamps, dark, bright"),
        "valve": words("valve"),
    },
    state_links=words(
        "is, are, was, were, has, have, been, now, already, still, currently, "
        "both, all, also, just, got"
    ),
    changed_links=words("been, got"),
    articles=words("the, your, my, a, an"),
    unsure=words("if, whether, unless, might, may, should, could, would"),
    is_state="{name} is {state}.",
    not_changed="I did not change {name}.",
    yes=words(
        "yes, yeah, yep, yup, sure, ok, okay, alright, all right, right, fine, "
        "good, great, perfect, correct, confirm, confirmed, do it, go ahead, "
        "go for it, go on, please do, of course, absolutely, certainly, "
        "definitely, affirmative, sounds good"
    ),
    no=words(
        "no, nope, nah, no way, cancel, stop, abort, negative, never mind, "
        "forget it, leave it"
    ),
    negations=words(
        "not, don't, do not, didn't, did not, doesn't, won't, wouldn't, "
        "shouldn't, can't, cannot, never, isn't"
    ),
    hedges=words(
        "maybe, perhaps, possibly, not sure, unsure, don't know, dunno, no idea, "
        "i guess, wait, hold on, hang on, hmm, huh, pardon, come again, "
        "what do you mean, let me think"
    ),
    questions=words("what, what's, which, who, who's, where, why, how"),
    polite=words("please, thanks, thank you, cheers"),
    fillers=words(
        "um, uh, er, erm, oh, well, so, then, and, i, i'm, i said, it, that, now, "
        "jarvis"
    ),
    secret_codes=words("code, pin, combination, card number, cvv, cvc"),
    secret_passwords=words("password, passcode, passphrase"),
    secret_links=words("is, was, are, equals"),
    number_words=words(
        "zero, oh, one, two, three, four, five, six, seven, eight, nine, ten, eleven, twelve, thirteen, fourteen, fifteen, sixteen, seventeen, eighteen, nineteen, twenty, thirty, forty, fifty, sixty, seventy, eighty, ninety, hundred, thousand, double, triple"
    ),
    number_joiners=words("and"),
    number_scales=words("hundred, thousand, million, billion"),
    number_units=words(
        "percent, per cent, degree, degrees, calorie, calories, cal, kcal, step, "
        "steps, euro, euros, cent, cents, dollar, dollars, buck, bucks, pound, "
        "pounds, watt, watts, volt, volts, amp, amps, lumen, lumens, kelvin, gram, "
        "grams, kilo, kilos, kilogram, kilograms, ounce, ounces, litre, litres, "
        "liter, liters, gallon, gallons, metre, metres, meter, meters, kilometre, "
        "kilometres, kilometer, kilometers, mile, miles, foot, feet, inch, inches, "
        "yard, yards, second, seconds, sec, secs, minute, minutes, hour, hours, hr, "
        "hrs, day, days, week, weeks, month, months, year, years, am, pm, o'clock, "
        "time, times, people, persons, point, points, page, pages, word, words"
    ),
    percent_words=words("percent, per cent"),
    half_words=words("half, halfway, half way"),
    a_bit=words("a bit, a little, a little bit, slightly, a touch"),
    forecast_day="{day}: {condition}, from {low} to {high}.",
    forecast_rain="{rain}% chance of rain.",
    days_said={
        0: words("today, tonight"),
        1: words("tomorrow"),
    },
    decimal_sign=".",
    stop=words("stop, cancel, never mind, nevermind, forget it, that's all"),
    remember=(r"remember(?:\s+that)?", r"don't forget(?:\s+that)?", "note that"),
    forget=(r"forget(?:\s+about|\s+that)?",),
    memory_please=("please",),
    common_words=words(
        "the, a, an, is, are, was, my, me, i, you, your, what, who, whats, what's, "
        "of, to, and, in, on, for, it, that, this, do, does, did, be, have, has, name"
    ),
    # "all": "delete all my automations" pointed to HassCancelAllTimers.
    stopwords=words(
        "the, a, an, and, or, to, of, in, on, at, for, please, can, you, could, "
        "would, me, my, i, it, all"
    ),
    tool_topics={
        "turnon": words("on, open, start, activate, lock, enable"),
        "turnoff": words("off, close, shut, stop, unlock, disable, disarm, deactivate"),
        "lightset": words("dim, brighten, brightness, percent, colour, color, white"),
        "setposition": words(
            "position, blind, blinds, curtain, curtains, shade, shades, shutter, shutters, halfway"
        ),
        "setvolume": words("volume, louder, quieter"),
        "unmute": words("unmute"),
        "unpause": words("resume, continue, unpause"),
        "mute": words("mute, silence"),
        "pause": words("pause"),
        "next": words("skip, next"),
        "previous": words("previous"),
        "climate": words(
            "temperature, warm, warmer, cold, colder, heat, heating, thermostat, "
            "degrees"
        ),
        "getlivecontext": words(
            "is, are, what, which, how, status, state, open, closed"
        ),
        "timer": words("timer, minutes, minute, seconds, hour, remind, countdown"),
        "forecast": words(
            "weather, forecast, tomorrow, rain, raining, snow, snowing, sunny, weekend, umbrella"
        ),
        "datetime": words("time, date, today, day, clock"),
        "media": words(
            "music, play, pause, resume, volume, louder, quieter, next, previous, "
            "song, track, tv"
        ),
        # Not "todo": the router reads every language's words, and Spanish
        # "del todo" (fully) brought the list tools to a garage door.
        "list": words("shopping, list, add, buy, tasks, task, note, jot"),
        "vacuumstart": words("vacuum, clean"),
        "returntobase": words("dock, base, return, charger"),
        "fan": words("fan"),
        "memory": words("remember, recall, forget, know, name"),
        "search": words("search, web, look, find"),
    },
    small_talk=(
        "hi",
        "hello",
        "hey",
        "good (?:morning|afternoon|evening|night)",
        "thanks?(?: you)?(?: (?:so|very) much)?",
        "thank you",
        "cheers",
        "bye",
        "goodbye",
        "see you",
        "how are you(?: doing)?",
        "who are you",
        "what(?:'s| is) your name",
        "tell me a joke",
        "you(?:'re| are) (?:great|funny|awesome)",
    ),
    greetings=words("hi, hello, hey"),
    introductions=words("my name is, call me"),
    small_talk_tails=words("there, again, buddy, mate"),
    thanks=words("thanks, thank you, cheers"),
    farewells=words("bye, goodbye, see you, good night"),
    welcome="You're welcome!",
    farewell="Goodbye!",
    greeted="Hello! I'm doing well, thanks. How can I help?",
    question_starts=words(
        "is, are, was, were, what, what's, which, who, where, when, why, how, do, "
        "does, did, can, could, would, will"
    ),
    tell_me=words("tell me, let me know"),
    polite_asks=words("can you, could you, would you, will you"),
    joiners=words("and, then, also"),
    wake_calls=words("hey, hi, hello, ok, okay, yo"),
)
