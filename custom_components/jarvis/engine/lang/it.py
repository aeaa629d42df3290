"""Italian."""

from .base import Language, words

LANGUAGE = Language(
    code="it",
    name="Italian",
    llm_unavailable=(
        "Scusa, al momento non riesco a raggiungere il mio modello linguistico. "
        "Riprova tra poco."
    ),
    not_understood="Scusa, non ci sono riuscito.",
    done="Fatto.",
    remembered="Me lo ricorderò.",
    remembered_without_secret="Me lo ricorderò, ma senza il codice o il numero: queste cose non le conservo.",
    forgotten="Fatto, l'ho dimenticato.",
    nothing_to_forget="Non avevo niente in memoria su questo.",
    stopped="Va bene.",
    too_slow="Scusa, ci sto mettendo troppo. Riprova, per favore.",
    to_do={
        "open": "aprire {target}",
        "unlock": "sbloccare {target}",
        "disarm": "disattivare {target}",
        "move": "portare {target} al {position}%",
        "toggle": "commutare {target}",
        "turn_on": "accendere {target}",
        "turn_off": "spegnere {target}",
        "lock": "chiudere a chiave {target}",
        "close": "chiudere {target}",
        "start": "avviare {target}",
        "pause": "mettere in pausa {target}",
        "resume": "riprendere {target}",
        "next": "passare {target} al brano successivo",
        "previous": "riportare {target} al brano precedente",
        "dock": "rimandare {target} alla base",
        "mute": "silenziare {target}",
        "unmute": "riattivare l'audio di {target}",
        "set": "impostare {target} al {position}%",
        "set_temperature": "impostare {target} a {position}",
        "set_volume": "impostare il volume di {target} al {position}%",
        "volume_up": "alzare il volume di {target}",
        "volume_down": "abbassare il volume di {target}",
        "brighten": "aumentare la luminosità di {target}",
        "dim": "abbassare la luminosità di {target}",
        "add": "aggiungere {item} a {target}",
        "complete": "spuntare {item} su {target}",
    },
    did={
        "open": "aperto {target}",
        "unlock": "sbloccato {target}",
        "disarm": "disattivato {target}",
        "move": "portato {target} al {position}%",
        "turn_on": "acceso {target}",
        "turn_off": "spento {target}",
        "lock": "chiuso a chiave {target}",
        "close": "chiuso {target}",
        "toggle": "commutato {target}",
        "start": "avviato {target}",
        "pause": "messo in pausa {target}",
        "resume": "ripreso {target}",
        "next": "passato {target} al brano successivo",
        "previous": "riportato {target} al brano precedente",
        "dock": "rimandato {target} alla base",
        "mute": "silenziato {target}",
        "unmute": "riattivato l'audio di {target}",
        "set": "impostato {target} al {position}%",
        "set_temperature": "impostato {target} a {position}",
        "set_volume": "impostato il volume di {target} al {position}%",
        "volume_up": "alzato il volume di {target}",
        "volume_down": "abbassato il volume di {target}",
        "brighten": "aumentato la luminosità di {target}",
        "dim": "abbassato la luminosità di {target}",
        "add": "aggiunto {item} a {target}",
        "complete": "spuntato {item} su {target}",
    },
    list_and=" e ",
    list_or=" o ",
    which="Quale intendi: {choices}?",
    which_device="Quale dispositivo intendi?",
    ask_actions="Devo {actions}?",
    ask_described="Devo fare questo: {action}?",
    done_actions="Fatto, ho {actions}.",
    not_done="Va bene, non lo faccio.",
    failed_plain="Scusa, non ha funzionato.",
    hold_gone="{names} non c'è più, quindi non ho fatto niente.",
    hold_changed="{names} è cambiato nel frattempo.",
    list_items="In {list} ci sono: {items}.",
    list_empty="In {list} non c'è niente.",
    cannot="Mi dispiace, non posso {action}.",
    no_forecast="Non vedo nessuna previsione del tempo: esponi un'entità meteo ad Assist.",
    none_in_state="Niente è {state}.",
    unknown_device="Scusa, non conosco nessun dispositivo chiamato {name}.",
    verb_domains={
        "cover": words("apri, aprire, chiudi, chiudere, alza, abbassa"),
        "valve": words("apri, aprire, chiudi, chiudere"),
        "lock": words("sblocca, sbloccare, blocca, bloccare"),
        "alarm_control_panel": words("attiva, disattiva, inserisci, disinserisci"),
        "media_player": words("riproduci, pausa, muto, volume"),
        "vacuum": words("aspira, pulisci"),
        "todo": words("aggiungi, annota, segna"),
    },
    measure_words={
        "temperature": words("temperatura, caldo, freddo, gradi"),
        "humidity": words("umidità, umido"),
        "battery": words("batteria, pila"),
    },
    list_verbs=words("metti, scrivi"),
    list_links=words(
        "a, alla, al, nella, nel, sulla, in, mia, mie, mio, la, le, il, nostra"
    ),
    exceptions=words("tranne, eccetto, salvo, a parte, ma non"),
    referring=words(
        "lo, la, li, le, l, questo, quello, tutti, tutte, entrambi, entrambe, metti, imposta, alza, abbassa, ora, adesso, anche, di, nuovo, a, al, gradi"
    ),
    clitics=words("lo, la, li, le"),
    everything=words("tutto"),
    all_of=words("tutti, tutte"),
    ways={
        "lock": words("blocca, bloccare, chiudi a chiave, chiudere a chiave"),
        "unlock": words("sblocca, sbloccare"),
        "open": words("apri, aprire, alza, solleva"),
        "close": words("chiudi, chiudere, abbassa"),
        "up": words("alza, alzare, aumenta, aumentare, più alto"),
        "down": words("abbassa, abbassare, diminuisci, diminuire, più basso"),
        "brighter": words("più luminoso, più luminosa, più chiaro, più chiara"),
        "dimmer": words("attenua, attenuare, più scuro, più scura"),
        "warmer": words("più caldo, riscalda, riscaldare"),
        "cooler": words("più fresco, più freddo, rinfresca"),
    },
    state_words={
        "on": words("acceso, accesa"),
        "off": words("spento, spenta"),
        "open": words("aperto, aperta"),
        "closed": words("chiuso, chiusa"),
        "locked": words("bloccato, bloccata, chiuso a chiave, chiusa a chiave"),
        "unlocked": words("sbloccato, sbloccata"),
        "playing": words("in riproduzione"),
        "paused": words("in pausa"),
        "muted": words("silenziato, silenziata, muto"),
        "unmuted": words("con l'audio"),
    },
    media_asks=words("suona, riproduzione, canzone, musica, brano, ascoltando"),
    kind_words={
        "lock": words("serratura"),
        "media_player": words("musica, altoparlante, cassa, televisione"),
        "climate": words("termostato, riscaldamento, condizionatore"),
        "fan": words("ventilatore"),
        "light": words("luce, luci, lampada, lampade"),
        "valve": words("valvola"),
    },
    state_links=words(
        "è, sono, era, stato, stata, stati, state, ora, adesso, già, ancora, anche"
    ),
    changed_links=words("stato, stata, stati, state"),
    articles=words("il, lo, la, l, i, gli, le, un, una"),
    unsure=words("se, forse, potrebbe"),
    is_state="Stato di {name}: {state}.",
    not_changed="Non ho cambiato {name}.",
    yes=words(
        "sì, certo, certamente, va bene, d'accordo, ok, okay, vai, vai pure, "
        "procedi, fallo, fai pure, sicuro, esatto, perfetto, assolutamente, "
        "senz'altro, confermo"
    ),
    no=words("no, annulla, fermati, ferma, basta, lascia stare, lascia perdere"),
    negations=words("non, mai, niente"),
    hedges=words(
        "forse, magari, non so, non lo so, non sono sicuro, non sono sicura, "
        "boh, aspetta, un attimo, un momento, cioè"
    ),
    questions=words("cosa, che cosa, quale, quali, chi, dove, perché, come"),
    polite=words("per favore, per piacere, grazie, grazie mille"),
    fillers=words("ehm, beh, allora, e, io, lo, ora, adesso"),
    secret_codes=words("codice, pin, combinazione, numero della carta"),
    secret_passwords=words("password, parola d'ordine"),
    secret_links=words("è, é, era, sono"),
    number_words=words(
        "zero, uno, una, un, due, tre, tré, quattro, cinque, sei, sette, otto, nove, dieci, undici, dodici, tredici, quattordici, quindici, sedici, diciassette, diciotto, diciannove, venti, vent, trenta, trent, quaranta, quarant, cinquanta, cinquant, sessanta, sessant, settanta, settant, ottanta, ottant, novanta, novant, cento, mille, mila"
    ),
    number_joiners=words("e"),
    number_scales=words("cento, mille, mila, milione, milioni, miliardo, miliardi"),
    number_units=words(
        "per cento, percento, grado, gradi, caloria, calorie, passo, passi, euro, "
        "centesimo, centesimi, dollaro, dollari, watt, volt, ampere, grammo, "
        "grammi, chilo, chili, litro, litri, metro, metri, chilometro, chilometri, "
        "miglio, miglia, secondo, secondi, minuto, minuti, ora, ore, giorno, "
        "giorni, settimana, settimane, mese, mesi, anno, anni, volta, volte, "
        "persone, punto, punti, pagina, pagine, parole"
    ),
    percent_words=words("per cento, percento"),
    half_words=words("a metà, metà"),
    a_bit=words("un po', un po, un poco, leggermente"),
    forecast_day="{day}: {condition}, da {low} a {high}.",
    forecast_rain="Probabilità di pioggia del {rain}%.",
    days_said={
        0: words("oggi, stasera"),
        1: words("domani"),
    },
    decimal_sign=",",
    stop=words("stop, basta, annulla, lascia perdere, lascia stare, fermati"),
    remember=(
        r"ricorda(?:ti)?(?:\s+che)?",
        r"non dimenticare(?:\s+che)?",
        r"tieni a mente(?:\s+che)?",
    ),
    forget=(r"dimentica(?:\s+che)?", r"scordati(?:\s+(?:di|che))?"),
    memory_please=("per favore,?",),
    common_words=words("il, lo, gli, le, è, sono, mio, mia, cosa, chi, che, di, e"),
    stopwords=words("il, lo, la, gli, le, e, di, per, favore"),
    tool_topics={
        "turnon": words("accendi, accendere, apri, aprire, attiva, blocca"),
        "turnoff": words(
            "spegni, spegnere, chiudi, chiudere, disattiva, sblocca, disinserisci, disarma"
        ),
        "lightset": words("abbassa, luminosità, percento, colore"),
        "setposition": words(
            "posizione, tapparella, tapparelle, tenda, tende, persiana, persiane"
        ),
        "setvolume": words("volume"),
        "unmute": words("audio"),
        "unpause": words("riprendi"),
        "mute": words("muto, silenzia, silenziare"),
        "pause": words("pausa"),
        "next": words("successivo, successiva, prossimo, prossima"),
        "previous": words("precedente"),
        "climate": words("temperatura, gradi, riscaldamento, termostato"),
        "getlivecontext": words("è, sono, cosa, quale, quali, stato, aperto, chiuso"),
        "timer": words("minuti, secondi, sveglia"),
        "forecast": words(
            "meteo, previsioni, domani, pioggia, piovere, pioverà, piove, neve, ombrello"
        ),
        "datetime": words("ora, oggi, giorno"),
        "media": words("musica, suona, riproduci, canzone, pausa, riprendi"),
        "list": words(
            "spesa, lista, aggiungi, compra, attività, compiti, annota, segna"
        ),
        "vacuumstart": words("aspirapolvere, pulisci"),
        "returntobase": words("base, ritorna, caricatore"),
        "fan": words("ventilatore"),
        "memory": words("ricorda, ricordati, dimentica"),
        "search": words("cerca"),
    },
    small_talk=(
        "ciao",
        "buongiorno",
        "buonasera",
        "buonanotte",
        "grazie(?: mille)?",
        "arrivederci",
        "come stai",
        "chi sei",
    ),
    greetings=words("ciao"),
    introductions=words("mi chiamo, il mio nome è"),
    small_talk_tails=words("ancora, amico"),
    thanks=words("grazie"),
    farewells=words("arrivederci, a dopo, a presto, buonanotte, buona notte"),
    welcome="Prego!",
    farewell="Arrivederci!",
    greeted="Ciao! Sto bene, grazie. Come posso aiutarti?",
    # Not "come" (how): English commands start with it.
    question_starts=words(
        "è, sono, cosa, che, quale, quali, chi, dove, quando, perché, puoi"
    ),
    tell_me=words("dimmi"),
    polite_asks=words("puoi, potresti, può, potrebbe, mi puoi"),
    joiners=words("e, poi"),
    wake_calls=words("ehi, ciao"),
)
