"""Spanish."""

from .base import Language, words

LANGUAGE = Language(
    code="es",
    name="Spanish",
    llm_unavailable=(
        "Lo siento, ahora mismo no puedo contactar con mi modelo de lenguaje. "
        "Inténtalo de nuevo en un momento."
    ),
    not_understood="Lo siento, no he podido resolverlo.",
    done="Hecho.",
    remembered="Lo recordaré.",
    remembered_without_secret="Lo recordaré, pero sin el código o número que contiene: eso no lo guardo.",
    forgotten="Hecho, lo he olvidado.",
    nothing_to_forget="No tenía nada guardado sobre eso.",
    stopped="Vale.",
    too_slow="Lo siento, esto me está llevando demasiado tiempo. Inténtalo de nuevo.",
    to_do={
        "open": "abrir {target}",
        "unlock": "desbloquear {target}",
        "disarm": "desarmar {target}",
        "move": "poner {target} al {position} %",
        "toggle": "alternar {target}",
        "turn_on": "encender {target}",
        "turn_off": "apagar {target}",
        "lock": "cerrar con llave {target}",
        "close": "cerrar {target}",
        "start": "poner en marcha {target}",
        "pause": "pausar {target}",
        "resume": "reanudar {target}",
        "next": "poner la siguiente pista en {target}",
        "previous": "poner la pista anterior en {target}",
        "dock": "enviar {target} a su base",
        "mute": "silenciar {target}",
        "unmute": "quitar el silencio a {target}",
        "set": "poner {target} al {position} %",
        "set_temperature": "poner {target} a {position}",
        "set_volume": "poner el volumen de {target} al {position} %",
        "volume_up": "subir el volumen de {target}",
        "volume_down": "bajar el volumen de {target}",
        "brighten": "subir el brillo de {target}",
        "dim": "bajar el brillo de {target}",
        "add": "añadir {item} a {target}",
        "complete": "marcar {item} como hecho en {target}",
    },
    did={
        "open": "abierto {target}",
        "unlock": "desbloqueado {target}",
        "disarm": "desarmado {target}",
        "move": "puesto {target} al {position} %",
        "turn_on": "encendido {target}",
        "turn_off": "apagado {target}",
        "lock": "cerrado con llave {target}",
        "close": "cerrado {target}",
        "toggle": "alternado {target}",
        "start": "puesto en marcha {target}",
        "pause": "pausado {target}",
        "resume": "reanudado {target}",
        "next": "puesto la siguiente pista en {target}",
        "previous": "puesto la pista anterior en {target}",
        "dock": "enviado {target} a su base",
        "mute": "silenciado {target}",
        "unmute": "quitado el silencio a {target}",
        "set": "puesto {target} al {position} %",
        "set_temperature": "puesto {target} a {position}",
        "set_volume": "puesto el volumen de {target} al {position} %",
        "volume_up": "subido el volumen de {target}",
        "volume_down": "bajado el volumen de {target}",
        "brighten": "subido el brillo de {target}",
        "dim": "bajado el brillo de {target}",
        "add": "añadido {item} a {target}",
        "complete": "marcado {item} como hecho en {target}",
    },
    list_and=" y ",
    list_or=" o ",
    which="¿Cuál quieres decir: {choices}?",
    which_device="¿Qué dispositivo quieres decir?",
    choice_links=words("el, la, de, del, en, que, está"),
    ask_actions="¿Debo {actions}?",
    ask_described="¿Debo hacer esto: {action}?",
    done_actions="Hecho, he {actions}.",
    not_done="Vale, no lo haré.",
    failed_plain="Lo siento, no ha funcionado.",
    hold_gone="{names} ya no está, así que no he hecho nada.",
    hold_changed="{names} ha cambiado mientras tanto.",
    list_items="En {list} hay: {items}.",
    list_empty="No hay nada en {list}.",
    cannot="Lo siento, no puedo {action}.",
    no_forecast="No veo ningún pronóstico del tiempo: expón una entidad meteorológica a Assist.",
    none_in_state="Nada está {state}.",
    unknown_device="Lo siento, no conozco ningún dispositivo llamado {name}.",
    verb_domains={
        "cover": words("abre, abrir, cierra, cerrar, sube, baja"),
        "valve": words("abre, abrir, cierra, cerrar"),
        "lock": words("desbloquea, desbloquear, bloquea, bloquear, echa la llave"),
        "alarm_control_panel": words("arma, armar, desarma, desarmar"),
        "media_player": words("reproduce, pausa, silencia, volumen"),
        "vacuum": words("aspira, aspirar, limpia, aspiradora"),
        "todo": words("apunta, apúntame, añade, anota, agrega"),
    },
    measure_words={
        "temperature": words("temperatura, calor, frío, caliente, grados"),
        "humidity": words("humedad, húmedo"),
        "battery": words("batería, pila"),
    },
    list_verbs=words("pon, ponme, mete, escribe"),
    list_links=words("a, al, en, la, las, el, los, mi, mis, nuestra, nuestras, de"),
    list_nouns=words("lista"),
    exceptions=words("excepto, salvo, menos, aparte de, pero no"),
    referring=words(
        "lo, la, los, las, le, les, eso, esto, ambos, ambas, todos, todas, pon, ponme, sube, baja, cambia, ajusta, ahora, también, otra, vez, de, nuevo, a, al, grados"
    ),
    clitics=words("lo, la, los, las, le, les, me"),
    everything=words("todo"),
    all_of=words("todas, todos"),
    ways={
        "on": words("enciende, encender, prende, prender, activa, activar"),
        "off": words("apaga, apagar, desactiva, desactivar"),
        "lock": words(
            "cierra con llave, cerrar con llave, echa la llave, bloquea, bloquear"
        ),
        "unlock": words("abre con llave, abrir con llave, desbloquea, desbloquear"),
        "open": words("abre, abrir, sube, subir, levanta"),
        "close": words("cierra, cerrar, baja, bajar"),
        "up": words("sube, subir, aumenta, aumentar, más alto"),
        "down": words("baja, bajar, disminuye, disminuir, más bajo"),
        "brighter": words(
            "más brillante, más clara, más claro, aumenta el brillo, muy oscuro, demasiado oscuro"
        ),
        "dimmer": words(
            "atenúa, atenuar, más oscura, más oscuro, baja el brillo, demasiada luz, demasiado claro"
        ),
        "warmer": words("más caliente, más cálido, más calor, calienta"),
        "cooler": words("más frío, más fresco, enfría"),
        "warm_white": words("blanco cálido, luz cálida"),
        "cool_white": words("blanco frío, luz fría, luz de día"),
        "start": words(
            "inicia, iniciar, empieza, empezar, arranca, arrancar, pon en marcha"
        ),
        "stop": words("detén, deten, detener, parar"),
    },
    colours={
        "red": words("rojo, roja, rojos, rojas"),
        "orange": words("naranja"),
        "yellow": words("amarillo, amarilla, amarillos, amarillas"),
        "green": words("verde, verdes"),
        "blue": words("azul, azules"),
        "purple": words("morado, morada, púrpura"),
        "pink": words("rosa, rosado, rosada"),
        "white": words("blanco, blanca, blancos, blancas"),
        "cyan": words("cian"),
        "magenta": words("magenta"),
        "turquoise": words("turquesa"),
        "violet": words("violeta"),
    },
    state_words={
        "on": words("encendido, encendida"),
        "off": words("apagado, apagada"),
        "open": words("abierto, abierta"),
        "closed": words("cerrado, cerrada"),
        "locked": words("bloqueado, bloqueada, cerrado con llave, cerrada con llave"),
        "unlocked": words("desbloqueado, desbloqueada"),
        "playing": words("reproduciendo, sonando"),
        "paused": words("en pausa, pausado, pausada"),
        "muted": words("silenciado, silenciada"),
        "unmuted": words("con sonido"),
    },
    media_asks=words(
        "suena, sonando, reproduciendo, canción, música, escuchando, tema"
    ),
    kind_words={
        "lock": words("cerradura"),
        "media_player": words("música, altavoz, televisión, tele"),
        "climate": words("termostato, calefacción, aire acondicionado"),
        "fan": words("ventilador"),
        "light": words("luz, luces, lámpara, lámparas, oscuro, oscura, claridad"),
        "valve": words("válvula"),
    },
    state_links=words(
        "está, están, estaba, es, son, ha, han, sido, fue, ya, ahora, sigue, "
        "todavía, también"
    ),
    changed_links=words("sido, fue, fueron"),
    articles=words("el, la, los, las, tu, un, una"),
    unsure=words("no, si, quizás, podría"),
    is_state="Estado de {name}: {state}.",
    not_changed="No he cambiado {name}.",
    yes=words(
        "sí, claro, vale, dale, venga, bueno, de acuerdo, por supuesto, hazlo, "
        "adelante, perfecto, correcto, exacto, afirmativo, ok, okey, cómo no"
    ),
    no=words("no, cancela, cancelar, detente, basta, ni hablar, de ninguna manera"),
    negations=words("nunca, jamás, nada, tampoco"),
    hedges=words(
        "quizás, quizá, tal vez, a lo mejor, no sé, no lo sé, no estoy seguro, "
        "no estoy segura, ni idea, espera, un momento, qué quieres decir"
    ),
    questions=words("qué, cuál, cuáles, quién, quiénes, dónde, por qué, cómo"),
    polite=words("por favor, gracias, muchas gracias"),
    fillers=words("eh, pues, entonces, y, yo, ahora, lo"),
    secret_codes=words("código, codigo, pin, combinación, número de tarjeta"),
    secret_passwords=words("contraseña, clave"),
    secret_links=words("es, era, son"),
    number_words=words(
        "cero, uno, una, un, dos, tres, cuatro, cinco, seis, siete, ocho, nueve, diez, once, doce, trece, catorce, quince, dieciséis, diecisiete, dieciocho, diecinueve, veinte, veinti, veintiún, veintidós, veintitrés, veintiséis, treinta, cuarenta, cincuenta, sesenta, setenta, ochenta, noventa, cien, ciento, mil"
    ),
    number_joiners=words("y"),
    number_scales=words("cien, ciento, cientos, mil, millón, millones"),
    number_units=words(
        "por ciento, grado, grados, caloría, calorías, paso, pasos, euro, euros, "
        "céntimo, céntimos, dólar, dólares, peso, pesos, vatio, vatios, voltio, "
        "voltios, amperio, amperios, gramo, gramos, kilo, kilos, litro, litros, "
        "metro, metros, kilómetro, kilómetros, milla, millas, segundo, segundos, "
        "minuto, minutos, hora, horas, día, días, semana, semanas, mes, meses, año, "
        "años, vez, veces, personas, punto, puntos, página, páginas, palabras"
    ),
    percent_words=words("por ciento, porciento"),
    half_words=words("la mitad, a medias, a media altura"),
    a_bit=words("un poco, un poquito, ligeramente"),
    forecast_day="{day}: {condition}, de {low} a {high}.",
    forecast_rain="Probabilidad de lluvia del {rain} %.",
    days_said={
        0: words("hoy, esta noche"),
        1: words("mañana"),
    },
    decimal_sign=",",
    stop=words("para, detente, cancela, olvídalo, déjalo"),
    remember=(r"recuerda(?:\s+que)?", r"no olvides(?:\s+que)?"),
    forget=(r"olvida(?:\s+que)?",),
    memory_please=("por favor,?",),
    common_words=words("el, la, los, las, es, mi, mis, qué, que, cómo, quién, y"),
    stopwords=words("el, la, los, las, y, por, favor"),
    tool_topics={
        "turnon": words("enciende, encender, prende, abre, abrir, activa"),
        "turnoff": words(
            "apaga, apagar, cierra, cerrar, desarma, desarmar, desactiva, desactivar"
        ),
        "lightset": words("brillo, atenúa, porcentaje, ciento, blanco, blanca"),
        "setposition": words("posición, persiana, persianas, cortina, cortinas, toldo"),
        "setvolume": words("volumen"),
        "unmute": words("sonido"),
        "unpause": words("reanuda, reanudar, continúa"),
        "mute": words("silencia, silenciar, silencio"),
        "pause": words("pausa, pausar"),
        "next": words("siguiente, salta"),
        "previous": words("anterior"),
        "climate": words("temperatura, grados, calefacción"),
        "getlivecontext": words("está, están, qué, cuál, cómo, estado"),
        "timer": words("temporizador, minutos"),
        "forecast": words(
            "clima, pronóstico, previsión, mañana, lluvia, llover, lloverá, llueve, nieve, paraguas"
        ),
        "datetime": words("hora, fecha, hoy"),
        "media": words(
            "música, reproduce, volumen, pausa, pausar, reanuda, reanudar, continúa"
        ),
        "list": words("compra, lista, añade, tareas, tarea, apunta, anota, apúntame"),
        "vacuumstart": words("aspiradora, aspira, aspirar"),
        "returntobase": words("base, regresa, cargador"),
        "fan": words("ventilador"),
        "memory": words("recuerda, olvida"),
        "search": words("busca"),
    },
    small_talk=(
        "hola",
        "buen(?:os|as) (?:días|tardes|noches)",
        "gracias",
        "adiós",
        "qué tal",
        "quién eres",
    ),
    greetings=words("hola"),
    introductions=words("me llamo, mi nombre es"),
    small_talk_tails=words("otra vez, amigo"),
    thanks=words("gracias"),
    farewells=words("adiós, hasta luego, hasta mañana, buenas noches"),
    welcome="¡De nada!",
    farewell="¡Adiós!",
    greeted="¡Hola! Estoy bien, gracias. ¿En qué puedo ayudarte?",
    question_starts=words(
        "está, están, es, son, qué, cuál, cuáles, quién, dónde, cuándo, cómo, puedes"
    ),
    tell_me=words("dime, dígame"),
    polite_asks=words("puedes, podrías, puede, podría, me puedes, me podrías"),
    joiners=words("y, luego"),
    wake_calls=words("hola, oye"),
)
