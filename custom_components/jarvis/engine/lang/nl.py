"""Dutch."""

from .base import Language, words

LANGUAGE = Language(
    code="nl",
    name="Dutch",
    llm_unavailable="Sorry, ik kan mijn taalmodel nu niet bereiken. Probeer het zo nog eens.",
    not_understood="Sorry, dat is me niet gelukt.",
    done="Klaar.",
    remembered="Dat onthoud ik.",
    remembered_without_secret="Dat onthoud ik, maar zonder de code of het nummer: zoiets bewaar ik niet.",
    forgotten="Klaar, ik ben het vergeten.",
    nothing_to_forget="Daar had ik niets over onthouden.",
    stopped="Oké.",
    too_slow="Sorry, dit duurt te lang. Probeer het nog eens.",
    to_do={
        "open": "{target} openen",
        "unlock": "{target} ontgrendelen",
        "disarm": "{target} uitschakelen",
        "move": "{target} op {position}% zetten",
        "toggle": "{target} omschakelen",
        "turn_on": "{target} aanzetten",
        "turn_off": "{target} uitzetten",
        "lock": "{target} op slot doen",
        "close": "{target} sluiten",
        "start": "{target} starten",
        "pause": "{target} pauzeren",
        "resume": "{target} hervatten",
        "next": "{target} naar het volgende nummer zetten",
        "previous": "{target} terug naar het vorige nummer zetten",
        "dock": "{target} terugsturen naar het dock",
        "mute": "{target} dempen",
        "unmute": "het geluid van {target} weer aanzetten",
        "set": "{target} op {position}% zetten",
        "set_volume": "het volume van {target} op {position}% zetten",
        "add": "{item} aan {target} toevoegen",
        "complete": "{item} op {target} afvinken",
    },
    did={
        "open": "{target} geopend",
        "unlock": "{target} ontgrendeld",
        "disarm": "{target} uitgeschakeld",
        "move": "{target} op {position}% gezet",
        "turn_on": "{target} aangezet",
        "turn_off": "{target} uitgezet",
        "lock": "{target} op slot gedaan",
        "close": "{target} gesloten",
        "toggle": "{target} omgeschakeld",
        "start": "{target} gestart",
        "pause": "{target} gepauzeerd",
        "resume": "{target} hervat",
        "next": "{target} naar het volgende nummer gezet",
        "previous": "{target} terug naar het vorige nummer gezet",
        "dock": "{target} teruggestuurd naar het dock",
        "mute": "{target} gedempt",
        "unmute": "het geluid van {target} weer aangezet",
        "set": "{target} op {position}% gezet",
        "set_volume": "het volume van {target} op {position}% gezet",
        "add": "{item} aan {target} toegevoegd",
        "complete": "{item} op {target} afgevinkt",
    },
    list_and=" en ",
    list_or=" of ",
    which="Welke bedoel je: {choices}?",
    which_device="Welk apparaat bedoel je?",
    ask_actions="Zal ik {actions}?",
    ask_described="Zal ik dit doen: {action}?",
    done_actions="Klaar, ik heb {actions}.",
    not_done="Oké, dan doe ik het niet.",
    failed_plain="Sorry, dat is niet gelukt.",
    hold_gone="{names} is er niet meer, dus ik heb niets gedaan.",
    hold_changed="{names} is intussen veranderd.",
    list_items="Op {list} staat: {items}.",
    list_empty="Er staat niets op {list}.",
    none_in_state="Niets is {state}.",
    unknown_device="Sorry, ik ken geen apparaat met de naam {name}.",
    verb_domains={
        "cover": words(
            "open, openen, sluit, sluiten, doe open, doe dicht, omhoog, omlaag"
        ),
        "valve": words("open, openen, sluit, sluiten"),
        "lock": words("ontgrendel, ontgrendelen, vergrendel, vergrendelen"),
        "alarm_control_panel": words(
            "inschakelen, uitschakelen, schakel in, schakel uit"
        ),
        "media_player": words("speel, pauzeer, demp, volume"),
        "vacuum": words("stofzuig, stofzuigen, maak schoon"),
        "todo": words("voeg, noteer, schrijf"),
    },
    measure_words={
        "temperature": words("temperatuur, warm, koud, graden"),
        "humidity": words("luchtvochtigheid, vochtigheid, vochtig"),
        "battery": words("batterij, accu"),
    },
    list_verbs=words("zet, schrijf"),
    list_links=words("aan, op, in, mijn, de, het, onze"),
    exceptions=words("behalve, uitgezonderd, maar niet"),
    referring=words(
        "het, ze, die, dat, deze, beide, allemaal, alle, zet, doe, draai, stel, in, nu, ook, weer, op, graden"
    ),
    clitics=(),
    everything=words("alles"),
    ways={
        "lock": words("vergrendel, vergrendelen, op slot"),
        "unlock": words("ontgrendel, ontgrendelen, van het slot"),
        "open": words("open, openen, omhoog"),
        "close": words("sluit, sluiten, dicht, omlaag"),
    },
    state_words={
        "on": words("aan, ingeschakeld, aangezet"),
        "off": words("uit, uitgeschakeld, uitgezet"),
        "open": words("open, geopend"),
        "closed": words("dicht, gesloten"),
        "locked": words("op slot, vergrendeld"),
        "unlocked": words("van het slot, ontgrendeld"),
        "playing": words("speelt, afgespeeld"),
        "paused": words("gepauzeerd"),
        "muted": words("gedempt"),
        "unmuted": words("hoorbaar"),
    },
    media_asks=words("speelt, nummer, liedje, muziek, luister"),
    kind_words={
        "lock": words("deurslot"),
        "media_player": words("muziek, speaker, luidspreker, televisie"),
        "climate": words("thermostaat, verwarming, airco"),
        "fan": words("ventilator"),
        "valve": words("klep, ventiel"),
    },
    state_links=words(
        "is, zijn, was, waren, werd, werden, staat, staan, nu, al, nog, ook"
    ),
    changed_links=words("werd, werden"),
    articles=words("de, het, een, je, jouw"),
    unsure=words("als, indien, misschien, zou"),
    is_state="{name} is {state}.",
    not_changed="Ik heb {name} niet veranderd.",
    yes=words(
        "ja, jawel, jazeker, zeker, oké, ok, okay, prima, goed, is goed, "
        "natuurlijk, doe maar, doe het, ga je gang, ga maar, akkoord, graag, "
        "precies, klopt, prima zo"
    ),
    no=words("nee, neen, nope, annuleer, annuleren, stop, laat maar"),
    negations=words("niet, geen, nooit"),
    hedges=words(
        "misschien, weet niet, weet het niet, weet ik niet, geen idee, "
        "niet zeker, wacht, wacht even, momentje, hoe bedoel je"
    ),
    questions=words("wat, welke, welk, wie, waar, waarom, hoe"),
    polite=words("alsjeblieft, alstublieft, dank je, dank u, bedankt, hoor"),
    fillers=words("eh, uhm, nou, dan, en, ik, het, nu, maar"),
    secret_codes=words("code, pin, combinatie, kaartnummer"),
    secret_passwords=words("wachtwoord"),
    secret_links=words("is, was, luidt, zijn"),
    number_words=words(
        "nul, een, één, twee, drie, vier, vijf, zes, zeven, acht, negen, tien, elf, twaalf, dertien, veertien, twintig, dertig, veertig, vijftig, zestig, zeventig, tachtig, negentig, honderd, duizend"
    ),
    number_joiners=words("en, ën"),
    number_scales=words("honderd, duizend, miljoen, miljard"),
    number_units=words(
        "procent, graad, graden, calorie, calorieën, stap, stappen, euro, euro's, "
        "cent, dollar, dollars, watt, volt, ampère, gram, kilo, kilo's, liter, "
        "liters, meter, kilometer, mijl, seconde, seconden, minuut, minuten, uur, "
        "dag, dagen, week, weken, maand, maanden, jaar, jaren, keer, maal, mensen, "
        "personen, punt, punten, pagina, pagina's, woorden"
    ),
    percent_words=words("procent"),
    decimal_sign=",",
    stop=words(
        "stop, stoppen, hou op, annuleer, laat maar, laat maar zitten, vergeet het"
    ),
    remember=(
        r"onthoud(?:\s+dat)?",
        r"vergeet niet(?:\s+dat)?",
        r"denk eraan(?:\s+dat)?",
    ),
    forget=(r"vergeet(?:\s+dat)?",),
    memory_please=("alsjeblieft,?",),
    common_words=words("de, het, een, is, zijn, mijn, wat, wie, hoe, en, van"),
    stopwords=words("de, het, een, en, of, alsjeblieft"),
    tool_topics={
        "turnon": words("aan, inschakelen, vergrendel, activeer"),
        "turnoff": words("uit, uitschakelen, sluit, dicht, ontgrendel, deactiveer"),
        "lightset": words("dimmen, helderheid, procent, kleur"),
        "setposition": words(
            "positie, gordijn, gordijnen, rolluik, rolluiken, zonwering"
        ),
        "setvolume": words("volume, harder, zachter"),
        "unmute": words("geluid"),
        "unpause": words("hervat"),
        "mute": words("demp, dempen, stil"),
        "pause": words("pauzeer, pauze"),
        "next": words("volgende"),
        "previous": words("vorige"),
        "climate": words("temperatuur, graden, verwarming, kouder"),
        "getlivecontext": words("zijn, wat, welke, hoe, staat, dicht"),
        "timer": words("minuten, seconden, uur, wekker"),
        "datetime": words("tijd, datum, vandaag, klok"),
        "media": words("muziek, speel, pauze, harder, zachter, volgende, hervat"),
        "list": words("boodschappen, lijst, toevoegen, kopen, taken, taak, noteer"),
        "vacuumstart": words("stofzuiger, stofzuigen"),
        "returntobase": words("basis, terug, dock, laadstation"),
        "fan": words("ventilator"),
        "memory": words("onthoud, vergeet, herinner"),
        "search": words("zoek"),
    },
    small_talk=(
        "hallo",
        "hoi",
        "goede(?:morgen|middag|navond)",
        "dank je(?: wel)?",
        "bedankt",
        "doei",
        "hoe gaat het",
        "wie ben jij",
    ),
    greetings=words("hallo, hoi"),
    introductions=words("mijn naam is, ik heet"),
    small_talk_tails=words("nogmaals, vriend"),
    question_starts=words(
        "is, zijn, wat, welke, wie, waar, wanneer, waarom, hoe, kun, kan"
    ),
    tell_me=words("vertel me, zeg me"),
    joiners=words("en, dan"),
    wake_calls=words("hoi, hé"),
)
