"""German."""

from .base import Language, words

LANGUAGE = Language(
    code="de",
    name="German",
    llm_unavailable=(
        "Entschuldigung, ich erreiche mein Sprachmodell gerade nicht. "
        "Bitte versuche es gleich noch einmal."
    ),
    not_understood="Entschuldigung, das habe ich nicht hinbekommen.",
    done="Erledigt.",
    remembered="Das merke ich mir.",
    remembered_without_secret="Das merke ich mir, aber ohne den Code oder die Nummer darin: so etwas speichere ich nicht.",
    forgotten="Erledigt, ich habe es vergessen.",
    nothing_to_forget="Dazu hatte ich mir nichts gemerkt.",
    stopped="Okay.",
    too_slow="Entschuldigung, das dauert zu lange. Bitte versuche es noch einmal.",
    to_do={
        "open": "{target} öffnen",
        "unlock": "{target} aufschließen",
        "disarm": "{target} unscharf schalten",
        "move": "{target} auf {position} % stellen",
        "toggle": "{target} umschalten",
        "turn_on": "{target} einschalten",
        "turn_off": "{target} ausschalten",
        "lock": "{target} abschließen",
        "close": "{target} schließen",
        "start": "{target} starten",
        "pause": "{target} pausieren",
        "resume": "{target} fortsetzen",
        "next": "{target} zum nächsten Titel weiterschalten",
        "previous": "{target} zum vorigen Titel zurückschalten",
        "dock": "{target} zur Ladestation schicken",
        "mute": "{target} stummschalten",
        "unmute": "den Ton von {target} wieder einschalten",
        "set": "{target} auf {position} % stellen",
        "set_temperature": "{target} auf {position} stellen",
        "set_volume": "die Lautstärke von {target} auf {position} % stellen",
        "volume_up": "{target} lauter stellen",
        "volume_down": "{target} leiser stellen",
        "brighten": "{target} heller machen",
        "dim": "{target} dimmen",
        "add": "{item} zu {target} hinzufügen",
        "complete": "{item} auf {target} abhaken",
    },
    did={
        "open": "{target} geöffnet",
        "unlock": "{target} aufgeschlossen",
        "disarm": "{target} unscharf geschaltet",
        "move": "{target} auf {position} % gestellt",
        "turn_on": "{target} eingeschaltet",
        "turn_off": "{target} ausgeschaltet",
        "lock": "{target} abgeschlossen",
        "close": "{target} geschlossen",
        "toggle": "{target} umgeschaltet",
        "start": "{target} gestartet",
        "pause": "{target} pausiert",
        "resume": "{target} fortgesetzt",
        "next": "{target} zum nächsten Titel weitergeschaltet",
        "previous": "{target} zum vorigen Titel zurückgeschaltet",
        "dock": "{target} zur Ladestation geschickt",
        "mute": "{target} stummgeschaltet",
        "unmute": "den Ton von {target} wieder eingeschaltet",
        "set": "{target} auf {position} % gestellt",
        "set_temperature": "{target} auf {position} gestellt",
        "set_volume": "die Lautstärke von {target} auf {position} % gestellt",
        "volume_up": "{target} lauter gestellt",
        "volume_down": "{target} leiser gestellt",
        "brighten": "{target} heller gemacht",
        "dim": "{target} gedimmt",
        "add": "{item} zu {target} hinzugefügt",
        "complete": "{item} auf {target} abgehakt",
    },
    list_and=" und ",
    list_or=" oder ",
    which="Welches meinst du: {choices}?",
    which_device="Welches Gerät meinst du?",
    choice_links=words(
        "im, in, am, auf, vom, von, aus, einen, eine, der, den, die, das, dem"
    ),
    ask_actions="Soll ich {actions}?",
    ask_described="Soll ich das tun: {action}?",
    done_actions="Erledigt, ich habe {actions}.",
    not_done="Okay, dann lasse ich es.",
    failed_plain="Entschuldigung, das hat nicht geklappt.",
    hold_gone="{names} gibt es nicht mehr, also habe ich nichts getan.",
    hold_changed="{names} hat sich inzwischen geändert.",
    list_items="Auf {list} steht: {items}.",
    list_empty="Auf {list} steht nichts.",
    cannot="Das geht leider nicht: {action}.",
    no_forecast="Ich sehe keine Wettervorhersage: Gib eine Wetter-Entität für Assist frei.",
    none_in_state="Nichts ist {state}.",
    unknown_device="Entschuldigung, ich kenne kein Gerät namens {name}.",
    verb_domains={
        "cover": words(
            "öffne, öffnen, schließe, schließen, mach auf, mach zu, hochfahren, runterfahren, auf, zu"
        ),
        "valve": words("öffne, öffnen, schließe, schließen, auf, zu"),
        "lock": words(
            "aufschließen, schließe auf, entriegeln, entriegle, abschließen, schließe ab, verriegeln, verriegle"
        ),
        "alarm_control_panel": words("scharf, unscharf, deaktiviere, aktiviere"),
        "media_player": words("spiele, pause, stumm, lautstärke"),
        "vacuum": words("saug, sauge, saugen, reinige, staubsauger, saugroboter"),
        "todo": words("notiere, notier, füge, trage, schreib, schreibe"),
    },
    measure_words={
        "temperature": words("temperatur, warm, kalt, heiß, grad"),
        "humidity": words("luftfeuchtigkeit, feuchtigkeit, feucht"),
        "battery": words("batterie, akku"),
    },
    list_verbs=words("setze, setz, pack, packe"),
    list_links=words(
        "auf, zu, zur, zum, in, meine, meinen, meiner, die, der, den, unsere, unseren"
    ),
    list_nouns=words("liste"),
    exceptions=words("außer, ausser, bis auf, ausgenommen, aber nicht"),
    referring=words(
        "es, sie, ihn, das, die, den, dies, beide, beiden, alle, mach, mache, schalte, schalt, stelle, stell, setze, setz, dreh, drehe, jetzt, nun, auch, wieder, grad"
    ),
    clitics=(),
    everything=words("alles"),
    all_of=words("alle, allen, sämtliche"),
    ways={
        "on": words(
            "schalte ein, schalt ein, schalte an, schalt an, mach an, mache an, einschalten, anschalten, anmachen"
        ),
        "off": words(
            "schalte aus, schalt aus, schalte ab, schalt ab, mach aus, mache aus, ausschalten, abschalten, ausmachen"
        ),
        "lock": words(
            "abschließen, abschliessen, schließ ab, schließe ab, zuschließen, zusperren, verriegle, verriegeln"
        ),
        "unlock": words(
            "aufschließen, aufschliessen, schließ auf, schließe auf, aufsperren, entriegle, entriegeln"
        ),
        "open": words("öffne, öffnen, auf, hoch, hochfahren"),
        "close": words(
            "schließe, schließen, schließ, zu, runter, herunter, herunterfahren, senke"
        ),
        "up": words("lauter, erhöhe, erhöhen, höher, rauf"),
        "down": words("leiser, verringere, verringern, niedriger, runter"),
        "brighter": words("heller, aufhellen, zu dunkel"),
        "dimmer": words("dunkler, dimmen, dimme, abdunkeln, zu hell"),
        "warmer": words("wärmer, heißer, aufheizen, aufwärmen"),
        "cooler": words("kälter, kühler, abkühlen"),
        "warm_white": words("warmweiß, warmweiss, warmes weiß, warmes licht"),
        "cool_white": words(
            "kaltweiß, kaltweiss, kaltes weiß, kaltes licht, tageslicht"
        ),
        "start": words("starte, starten, start, beginne, beginnen"),
        "stop": words("stopp, stoppe, stoppen, halte an, anhalten, beende, beenden"),
    },
    colours={
        "red": words("rot, rote, roten, rotes"),
        "orange": words("orange, orangen, oranges"),
        "yellow": words("gelb, gelbe, gelben, gelbes"),
        "green": words("grün, grüne, grünen, grünes"),
        "blue": words("blau, blaue, blauen, blaues"),
        "purple": words("lila"),
        "pink": words("pink, rosa"),
        "white": words("weiß, weiss, weiße, weißen, weißes"),
        "cyan": words("cyan"),
        "magenta": words("magenta"),
        "turquoise": words("türkis"),
        "violet": words("violett"),
    },
    state_words={
        "on": words("an, eingeschaltet, angeschaltet"),
        "off": words("aus, ausgeschaltet, abgeschaltet"),
        "open": words("offen, geöffnet, auf"),
        "closed": words("geschlossen, zu"),
        "locked": words("abgeschlossen, verriegelt, zugesperrt"),
        "unlocked": words("aufgeschlossen, entriegelt, aufgesperrt"),
        "playing": words("spielt, läuft"),
        "paused": words("pausiert"),
        "muted": words("stumm, stummgeschaltet"),
        "unmuted": words("nicht stumm"),
    },
    media_asks=words("läuft, spielt, Lied, Song, Titel, Musik, hört"),
    kind_words={
        "lock": words("schloss, türschloss"),
        "media_player": words("musik, lautsprecher, fernseher"),
        "climate": words("thermostat, heizung, klimaanlage"),
        "fan": words("ventilator, lüfter"),
        "light": words("licht, lichter, lampe, lampen, dunkel, hell"),
        "valve": words("ventil"),
    },
    state_links=words(
        "ist, sind, war, waren, wurde, wurden, worden, jetzt, nun, bereits, "
        "schon, noch, gerade, derzeit, aktuell, beide, alle, auch"
    ),
    changed_links=words("wurde, wurden, worden"),
    articles=words("der, die, das, den, dem, des, dein, deine, ein, eine, einen"),
    unsure=words("wenn, falls, ob, sollte, könnte, würde, vielleicht"),
    is_state="{name} ist {state}.",
    not_changed="Ich habe {name} nicht verändert.",
    yes=words(
        "ja, jawohl, jo, jep, klar, na klar, genau, gerne, gern, sicher, okay, ok, "
        "in ordnung, passt, richtig, natürlich, selbstverständlich, einverstanden, "
        "auf jeden fall, mach das, mach es, mach schon, mach ruhig, tu es, "
        "leg los, bestätigt"
    ),
    no=words("nein, nee, ne, nö, abbrechen, stopp, halt, auf keinen fall, vergiss es"),
    negations=words("nicht, kein, keine, keinen, nie, niemals"),
    hedges=words(
        "vielleicht, weiß nicht, weiß ich nicht, keine ahnung, nicht sicher, "
        "moment, warte, warte mal, hm, wie bitte, wie meinst du das"
    ),
    questions=words("was, welche, welcher, welches, wer, wo, wie, warum, wieso"),
    polite=words("bitte, danke, bitte schön, danke schön"),
    fillers=words("äh, ähm, also, dann, und, ich, es, das, jetzt, doch"),
    secret_codes=words(
        "code, pin, geheimzahl, geheimnummer, kombination, kartennummer"
    ),
    secret_passwords=words("passwort, kennwort"),
    secret_links=words("ist, lautet, war, sind, heißt"),
    number_words=words(
        "null, eins, ein, eine, zwei, zwo, drei, vier, fünf, sechs, sechzehn, sieben, siebzehn, acht, neun, zehn, elf, zwölf, zwanzig, dreißig, vierzig, fünfzig, sechzig, siebzig, achtzig, neunzig, hundert, tausend"
    ),
    number_joiners=words("und"),
    number_scales=words("hundert, tausend, million, millionen, milliarde, milliarden"),
    number_units=words(
        "prozent, grad, kalorie, kalorien, schritt, schritte, schritten, euro, "
        "cent, dollar, pfund, watt, volt, ampere, lumen, kelvin, gramm, kilo, "
        "kilogramm, liter, meter, kilometer, meile, meilen, zoll, sekunde, "
        "sekunden, minute, minuten, stunde, stunden, tag, tage, tagen, woche, "
        "wochen, monat, monate, monaten, jahr, jahre, jahren, uhr, mal, stück, "
        "leute, personen, punkt, punkte, seite, seiten, wörter"
    ),
    percent_words=words("prozent"),
    half_words=words("halb, halbe, zur hälfte, halbhoch"),
    a_bit=words("ein bisschen, ein wenig, ein Stück, etwas, leicht"),
    forecast_day="{day}: {condition}, {low} bis {high}.",
    forecast_rain="Regenwahrscheinlichkeit {rain} %.",
    days_said={
        0: words("heute"),
        1: words("morgen"),
    },
    decimal_sign=",",
    stop=words("stopp, halt, abbrechen, vergiss es, egal"),
    remember=(r"merk(?:e)?\s+dir,?(?:\s+dass)?", r"denk daran,?(?:\s+dass)?"),
    forget=(r"vergiss(?:,?\s+dass)?",),
    memory_please=("bitte",),
    common_words=words("der, die, das, ist, mein, meine, wie, was, wer, und"),
    stopwords=words("der, die, das, und, bitte"),
    tool_topics={
        # As in English, a lock is locked by "turn on" and unlocked by "turn off".
        "turnon": words(
            "an, ein, einschalten, anschalten, öffne, öffnen, auf, abschließen, "
            "verriegle, verriegeln, sperr, sperre, zusperren"
        ),
        "turnoff": words(
            "aus, ausschalten, abschalten, schließ, schließe, schließen, zu, "
            "unscharf, deaktiviere, deaktivieren, aufschließen, entriegle, "
            "entriegeln, aufsperren"
        ),
        "lightset": words("dimme, dimmen, helligkeit, prozent, farbe, weiß, weiss"),
        "setposition": words(
            "position, vorhang, vorhänge, rollo, rollos, rollladen, jalousie, jalousien"
        ),
        "setvolume": words("lautstärke, lauter, leiser"),
        "unmute": words("stummschaltung, laut"),
        "unpause": words("fort, fortsetzen, weiter"),
        "mute": words("stumm, stummschalten, ton"),
        "pause": words("pausiere, pausieren, pause"),
        "next": words("nächste, nächster, nächstes, nächsten, überspringe"),
        "previous": words("vorherige, vorherigen"),
        "climate": words("temperatur, grad, heizung, wärmer, kälter"),
        "getlivecontext": words("ist, sind, wie, was, welche, status"),
        "timer": words("minuten, stunde, wecker"),
        "forecast": words(
            "wetter, vorhersage, wettervorhersage, morgen, regen, regnet, schnee, schneit, wochenende, regenschirm"
        ),
        "datetime": words("uhr, uhrzeit, datum, heute"),
        "media": words(
            "musik, spiele, lauter, leiser, pausiere, pause, fort, fortsetzen"
        ),
        "list": words(
            "einkaufsliste, liste, kaufen, aufgaben, aufgabe, notiere, aufschreiben"
        ),
        "vacuumstart": words("staubsauger, saug, sauge, saugen, saugroboter"),
        "returntobase": words("ladestation, basis, zurück, andocken"),
        "fan": words("ventilator, lüfter"),
        "memory": words("merk, merke, erinnere, vergiss"),
        "search": words("suche"),
    },
    small_talk=(
        "hallo",
        "guten (?:morgen|tag|abend)",
        "danke(?: schön)?",
        "tschüss",
        "wie geht'?s",
        "wer bist du",
    ),
    greetings=words("hallo"),
    introductions=words("mein name ist, ich heiße"),
    small_talk_tails=words("nochmal, nochmals"),
    thanks=words("danke, dankeschön, vielen dank"),
    farewells=words("tschüss, auf wiedersehen, bis später, gute nacht"),
    welcome="Gern geschehen!",
    farewell="Tschüss!",
    greeted="Hallo! Mir geht es gut, danke. Wie kann ich helfen?",
    question_starts=words(
        "ist, sind, war, wer, wo, wann, warum, wie, welche, welcher, welches, hat, "
        "haben, kann, kannst"
    ),
    tell_me=words("sag mir, sage mir"),
    polite_asks=words("kannst du, könntest du, können sie, könnten sie, würdest du"),
    joiners=words("und, dann"),
    wake_calls=words("hallo, ey"),
)
