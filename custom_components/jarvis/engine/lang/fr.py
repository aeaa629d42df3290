"""French."""

from .base import Language, words

LANGUAGE = Language(
    code="fr",
    name="French",
    llm_unavailable=(
        "Désolé, je n'arrive pas à joindre mon modèle de langage. "
        "Réessayez dans un instant."
    ),
    not_understood="Désolé, je n'ai pas réussi.",
    done="C'est fait.",
    remembered="Je m'en souviendrai.",
    remembered_without_secret="Je m'en souviendrai, mais sans le code ou le numéro : je ne garde pas ce genre de choses.",
    forgotten="C'est fait, je l'ai oublié.",
    nothing_to_forget="Je n'avais rien retenu à ce sujet.",
    stopped="D'accord.",
    too_slow="Désolé, cela me prend trop de temps. Réessayez, s'il vous plaît.",
    to_do={
        "open": "ouvrir {target}",
        "unlock": "déverrouiller {target}",
        "disarm": "désarmer {target}",
        "move": "mettre {target} à {position} %",
        "toggle": "basculer {target}",
    },
    did={
        "open": "ouvert {target}",
        "unlock": "déverrouillé {target}",
        "disarm": "désarmé {target}",
        "move": "mis {target} à {position} %",
        "turn_on": "allumé {target}",
        "turn_off": "éteint {target}",
        "lock": "verrouillé {target}",
        "close": "fermé {target}",
        "toggle": "basculé {target}",
        "start": "démarré {target}",
        "pause": "mis en pause {target}",
        "resume": "repris {target}",
        "next": "passé {target} à la piste suivante",
        "previous": "ramené {target} à la piste précédente",
        "dock": "renvoyé {target} à sa base",
        "mute": "coupé le son de {target}",
        "unmute": "remis le son de {target}",
        "set": "réglé {target} à {position} %",
        "set_volume": "réglé le volume de {target} à {position} %",
        "add": "ajouté {item} à {target}",
        "complete": "coché {item} sur {target}",
    },
    list_and=" et ",
    list_or=" ou ",
    which="Lequel veux-tu dire : {choices} ?",
    which_device="Quel appareil veux-tu dire ?",
    ask_actions="Dois-je {actions} ?",
    ask_described="Dois-je faire ceci : {action} ?",
    done_actions="C'est fait, j'ai {actions}.",
    not_done="D'accord, je ne le fais pas.",
    failed_plain="Désolé, cela n'a pas marché.",
    hold_gone="{names} n'existe plus, je n'ai donc rien fait.",
    hold_changed="{names} a changé entre-temps.",
    list_items="Sur {list} : {items}.",
    list_empty="Il n'y a rien sur {list}.",
    verb_domains={
        "cover": words("ouvre, ouvrir, ferme, fermer, monte, baisse"),
        "valve": words("ouvre, ouvrir, ferme, fermer"),
        "lock": words("déverrouille, déverrouiller, verrouille, verrouiller"),
        "alarm_control_panel": words("arme, armer, désarme, désarmer"),
        "media_player": words("joue, pause, coupe le son, volume"),
        "vacuum": words("aspire, aspirer, nettoie"),
        "todo": words("ajoute, note, inscris"),
    },
    measure_words={
        "temperature": words("température, chaud, froid, degrés"),
        "humidity": words("humidité, humide"),
        "battery": words("batterie, pile"),
    },
    list_verbs=words("mets, mettre, écris"),
    list_links=words("à, au, sur, dans, ma, mes, la, le, les, notre, nos, de"),
    exceptions=words("sauf, excepté, hormis, à part, mais pas"),
    referring=words(
        "le, la, les, l, ça, cela, tous, toutes, deux, mets, règle, monte, baisse, maintenant, aussi, encore, à, au, degrés"
    ),
    clitics=(),
    everything=words("tout"),
    ways={
        "lock": words("verrouille, verrouiller, ferme à clé, fermer à clé"),
        "unlock": words("déverrouille, déverrouiller"),
        "open": words("ouvre, ouvrir, monte, lève"),
        "close": words("ferme, fermer, baisse, descends"),
    },
    state_words={
        "on": words("allumé, allumée"),
        "off": words("éteint, éteinte"),
        "open": words("ouvert, ouverte"),
        "closed": words("fermé, fermée"),
        "locked": words("verrouillé, verrouillée, fermé à clé, fermée à clé"),
        "unlocked": words("déverrouillé, déverrouillée"),
        "playing": words("en lecture, en cours de lecture"),
        "paused": words("en pause"),
        "muted": words("en sourdine, muet, muette"),
        "unmuted": words("avec le son"),
    },
    kind_words={
        "lock": words("serrure"),
        "media_player": words("musique, enceinte, haut-parleur, télé, télévision"),
        "climate": words("thermostat, chauffage, climatisation"),
        "fan": words("ventilateur"),
        "valve": words("vanne"),
    },
    state_links=words(
        "est, sont, était, a, ont, été, maintenant, déjà, toujours, encore, "
        "actuellement, aussi"
    ),
    changed_links=words("été"),
    articles=words("le, la, les, l, votre, ton, un, une"),
    unsure=words("ne, n, si, peut, pourrait"),
    is_state="État de {name} : {state}.",
    not_changed="Je n'ai pas changé {name}.",
    yes=words(
        "oui, ouais, si, d'accord, ok, okay, bien sûr, volontiers, vas-y, allez-y, "
        "allez, fais-le, faites-le, c'est bon, parfait, exactement, absolument, "
        "tout à fait, confirmé, entendu"
    ),
    no=words("non, annule, annuler, arrête, stop, laisse tomber, hors de question"),
    negations=words("pas, jamais, rien"),
    hedges=words(
        "peut-être, je ne sais pas, je sais pas, sais pas, aucune idée, "
        "pas sûr, pas sûre, attends, attendez, un instant, hein, pardon, "
        "c'est-à-dire"
    ),
    questions=words("quoi, quel, quelle, lequel, laquelle, qui, où, pourquoi, comment"),
    polite=words("s'il te plaît, s'il vous plaît, stp, svp, merci"),
    fillers=words("euh, ben, bah, alors, et, je, ça, maintenant"),
    secret_codes=words("code, pin, combinaison, numéro de carte"),
    secret_passwords=words("mot de passe, mdp"),
    secret_links=words("est, était"),
    number_words=words(
        "zéro, un, une, deux, trois, quatre, cinq, six, sept, huit, neuf, dix, onze, douze, treize, quatorze, quinze, seize, vingt, vingts, trente, quarante, cinquante, soixante, cent, cents, mille"
    ),
    number_joiners=words("et"),
    number_scales=words("cent, cents, mille, million, millions, milliard, milliards"),
    number_units=words(
        "pour cent, pourcent, degré, degrés, calorie, calories, pas, euro, euros, "
        "centime, centimes, dollar, dollars, watt, watts, volt, volts, ampère, "
        "ampères, gramme, grammes, kilo, kilos, litre, litres, mètre, mètres, "
        "kilomètre, kilomètres, mile, miles, seconde, secondes, minute, minutes, "
        "heure, heures, jour, jours, semaine, semaines, mois, an, ans, année, "
        "années, fois, personnes, point, points, page, pages, mots"
    ),
    percent_words=words("pour cent, pourcent"),
    decimal_sign=",",
    stop=words("arrête, annule, laisse tomber, oublie ça"),
    remember=(
        r"souviens-toi(?:\s+que)?",
        r"rappelle-toi(?:\s+que)?",
        r"retiens(?:\s+que)?",
    ),
    forget=(r"oublie(?:\s+que)?",),
    memory_please=("s'il te plaît,?",),
    common_words=words("le, la, les, est, mon, ma, mes, quel, quelle"),
    stopwords=words("le, les, et, s'il"),
    tool_topics={
        "turnon": words("allume, ouvre"),
        "turnoff": words("éteins, ferme, désarme, désarmer, désactive, désactiver"),
        "lightset": words("luminosité, cent, pourcentage"),
        "setposition": words("position, volet, volets, rideau, rideaux"),
        "setvolume": words("volume"),
        "unmute": words("rétablis, rétablir"),
        "unpause": words("reprends, reprendre"),
        "mute": words("sourdine, muet, silence"),
        "pause": words("pause"),
        "next": words("suivant, suivante"),
        "previous": words("précédent, précédente"),
        "climate": words("chauffage"),
        "getlivecontext": words("est, quel, quelle"),
        "timer": words("minuterie"),
        "datetime": words("heure, date"),
        "media": words("musique, joue, pause, reprends, reprendre"),
        "list": words("courses, liste, ajoute, tâches, tâche, note, achète"),
        "vacuumstart": words("aspirateur"),
        "returntobase": words("base, retour, rentre, chargeur"),
        "fan": words("ventilateur"),
        "memory": words("souviens"),
        "search": words("cherche"),
    },
    small_talk=("bonjour", "bonsoir", "merci", "salut", "au revoir", "ça va"),
    greetings=words("bonjour, salut"),
    introductions=words("je m'appelle"),
    small_talk_tails=words("encore, mon ami"),
    question_starts=words("est-ce, quel, quelle, qui, où, quand, comment, pourquoi"),
    tell_me=words("dis-moi, dites-moi"),
    joiners=words("et, puis"),
    wake_calls=words("dis"),
)
