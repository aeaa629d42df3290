"""Portuguese."""

from .base import Language, words

LANGUAGE = Language(
    code="pt",
    name="Portuguese",
    llm_unavailable=(
        "Desculpe, não consigo contactar o meu modelo de linguagem agora. "
        "Tente novamente daqui a pouco."
    ),
    not_understood="Desculpe, não consegui.",
    done="Feito.",
    remembered="Vou lembrar-me disso.",
    remembered_without_secret="Vou lembrar-me disso, mas sem o código ou número: isso não guardo.",
    forgotten="Feito, esqueci.",
    nothing_to_forget="Não tinha nada guardado sobre isso.",
    stopped="Está bem.",
    too_slow="Desculpe, isto está a demorar demasiado. Tente novamente.",
    to_do={
        "open": "abrir {target}",
        "unlock": "destrancar {target}",
        "disarm": "desarmar {target}",
        "move": "pôr {target} a {position}%",
        "toggle": "alternar {target}",
        "turn_on": "ligar {target}",
        "turn_off": "desligar {target}",
        "lock": "trancar {target}",
        "close": "fechar {target}",
        "start": "iniciar {target}",
        "pause": "pausar {target}",
        "resume": "retomar {target}",
        "next": "passar {target} para a faixa seguinte",
        "previous": "voltar {target} para a faixa anterior",
        "dock": "mandar {target} de volta à base",
        "mute": "silenciar {target}",
        "unmute": "reativar o som de {target}",
        "set": "pôr {target} a {position}%",
        "set_temperature": "pôr {target} a {position}",
        "set_volume": "pôr o volume de {target} a {position}%",
        "volume_up": "aumentar o volume de {target}",
        "volume_down": "baixar o volume de {target}",
        "brighten": "aumentar o brilho de {target}",
        "dim": "diminuir o brilho de {target}",
        "add": "adicionar {item} a {target}",
        "complete": "marcar {item} como feito em {target}",
    },
    did={
        "open": "abri {target}",
        "unlock": "destranquei {target}",
        "disarm": "desarmei {target}",
        "move": "pus {target} a {position}%",
        "turn_on": "liguei {target}",
        "turn_off": "desliguei {target}",
        "lock": "tranquei {target}",
        "close": "fechei {target}",
        "toggle": "alternei {target}",
        "start": "iniciei {target}",
        "pause": "pausei {target}",
        "resume": "retomei {target}",
        "next": "passei {target} para a faixa seguinte",
        "previous": "voltei {target} para a faixa anterior",
        "dock": "mandei {target} de volta à base",
        "mute": "silenciei {target}",
        "unmute": "reativei o som de {target}",
        "set": "pus {target} a {position}%",
        "set_temperature": "pus {target} a {position}",
        "set_volume": "pus o volume de {target} a {position}%",
        "volume_up": "aumentei o volume de {target}",
        "volume_down": "baixei o volume de {target}",
        "brighten": "aumentei o brilho de {target}",
        "dim": "diminuí o brilho de {target}",
        "add": "adicionei {item} a {target}",
        "complete": "marquei {item} como feito em {target}",
    },
    list_and=" e ",
    list_or=" ou ",
    which="Qual queres dizer: {choices}?",
    which_device="Que dispositivo queres dizer?",
    choice_links=words("o, a, do, da, no, na, em, que, está"),
    ask_actions="Devo {actions}?",
    ask_described="Devo fazer isto: {action}?",
    done_actions="Feito, {actions}.",
    not_done="Está bem, não o faço.",
    failed_plain="Desculpe, não funcionou.",
    hold_gone="{names} já não existe, por isso não fiz nada.",
    hold_changed="{names} mudou entretanto.",
    list_items="Em {list} há: {items}.",
    list_empty="Não há nada em {list}.",
    cannot="Desculpe, não posso {action}.",
    no_forecast="Não vejo nenhuma previsão do tempo: exponha uma entidade de meteorologia ao Assist.",
    none_in_state="Nada está {state}.",
    unknown_device="Desculpe, não conheço nenhum dispositivo chamado {name}.",
    verb_domains={
        "cover": words("abre, abrir, fecha, fechar, sobe, desce"),
        "valve": words("abre, abrir, fecha, fechar"),
        "lock": words("destranca, destrancar, tranca, trancar"),
        "alarm_control_panel": words("arma, armar, desarma, desarmar"),
        "media_player": words("toca, pausa, silencia, volume"),
        "vacuum": words("aspira, aspirar, limpa"),
        "todo": words("adiciona, anota, aponta, acrescenta"),
    },
    measure_words={
        "temperature": words("temperatura, calor, frio, quente, graus"),
        "humidity": words("umidade, humidade, úmido"),
        "battery": words("bateria, pilha"),
    },
    list_verbs=words("põe, coloca, escreve"),
    list_links=words("a, à, ao, na, no, em, minha, minhas, meu, as, o, nossa, de"),
    list_nouns=words("lista"),
    exceptions=words("exceto, menos, salvo, à exceção de, mas não"),
    referring=words(
        "o, a, os, as, ele, ela, eles, elas, isso, isto, ambos, ambas, todos, todas, põe, coloca, ajusta, sobe, baixa, agora, também, de, novo, outra, vez, em, no, na, ao, graus"
    ),
    clitics=(),
    everything=words("tudo"),
    all_of=words("todas, todos"),
    ways={
        "on": words("liga, ligar, acende, acender, ativa, ativar"),
        "off": words("desliga, desligar, apaga, apagar, desativa, desativar"),
        "lock": words("tranca, trancar, fecha à chave, fechar à chave"),
        "unlock": words("destranca, destrancar"),
        "open": words("abre, abrir, sobe, subir, levanta"),
        "close": words("fecha, fechar, baixa, baixar"),
        "up": words("aumenta, aumentar, sobe, subir, mais alto"),
        "down": words("baixa, baixar, diminui, diminuir, mais baixo"),
        "brighter": words("mais clara, mais claro, mais brilho, muito escuro"),
        "dimmer": words(
            "mais escura, mais escuro, escurece, diminui o brilho, muito claro"
        ),
        "warmer": words("mais quente, aquece, aquecer"),
        "cooler": words("mais fresco, mais frio, arrefece, esfria"),
        "warm_white": words("branco quente, luz quente"),
        "cool_white": words("branco frio, luz fria, luz do dia"),
        "start": words("inicia, iniciar, inicie, começa, começar, comece"),
        "stop": words("pare, parar, interrompe, interromper"),
    },
    colours={
        "red": words("vermelho, vermelha, vermelhos, vermelhas"),
        "orange": words("laranja"),
        "yellow": words("amarelo, amarela, amarelos, amarelas"),
        "green": words("verde, verdes"),
        "blue": words("azul, azuis"),
        "purple": words("roxo, roxa, púrpura"),
        "pink": words("rosa, cor-de-rosa"),
        "white": words("branco, branca, brancos, brancas"),
        "cyan": words("ciano"),
        "magenta": words("magenta"),
        "turquoise": words("turquesa"),
        "violet": words("violeta"),
    },
    state_words={
        "on": words("ligado, ligada, aceso, acesa"),
        "off": words("desligado, desligada, apagado, apagada"),
        "open": words("aberto, aberta"),
        "closed": words("fechado, fechada"),
        "locked": words("trancado, trancada, bloqueado, bloqueada"),
        "unlocked": words("destrancado, destrancada, desbloqueado, desbloqueada"),
        "playing": words("a tocar, tocando, em reprodução"),
        "paused": words("em pausa, pausado, pausada"),
        "muted": words("silenciado, silenciada, sem som"),
        "unmuted": words("com som"),
    },
    media_asks=words("tocando, toca, música, canção, faixa, ouvindo"),
    kind_words={
        "lock": words("fechadura"),
        "media_player": words("música, coluna, altifalante, televisão"),
        "climate": words("termostato, aquecimento, ar condicionado"),
        "fan": words("ventoinha, ventilador"),
        "light": words("luz, luzes, lâmpada, lâmpadas, escuro, escura"),
        "valve": words("válvula"),
    },
    state_links=words(
        "está, estão, estava, é, são, foi, foram, ficou, já, agora, ainda, também"
    ),
    changed_links=words("foi, foram, ficou"),
    articles=words("o, a, os, as, um, uma"),
    unsure=words("não, se, talvez, poderia"),
    is_state="Estado de {name}: {state}.",
    not_changed="Não alterei {name}.",
    yes=words(
        "sim, claro, certo, pode, pode ser, pode sim, está bem, tá bem, ta bom, "
        "tudo bem, ok, okay, com certeza, de acordo, vai, força, faz isso, "
        "exato, perfeito, confirmo, beleza"
    ),
    no=words("não, cancela, cancelar, pare, basta, esquece, nem pensar"),
    negations=words("nunca, jamais, nada, nem"),
    hedges=words(
        "talvez, se calhar, não sei, não tenho a certeza, não tenho certeza, "
        "sei lá, espera, espere, um momento, como assim"
    ),
    questions=words("o quê, que, qual, quais, quem, onde, porquê, por que"),
    polite=words("por favor, obrigado, obrigada"),
    fillers=words("eh, pois, então, e, eu, isso, agora"),
    secret_codes=words("código, codigo, pin, combinação, número do cartão"),
    secret_passwords=words("senha, palavra-passe"),
    secret_links=words("é, era, são"),
    number_words=words(
        "zero, um, uma, dois, duas, três, quatro, cinco, seis, meia, sete, oito, nove, dez, onze, doze, treze, catorze, quatorze, quinze, dezesseis, dezasseis, dezessete, dezassete, dezoito, dezenove, dezanove, vinte, trinta, quarenta, cinquenta, sessenta, setenta, oitenta, noventa, cem, cento, mil"
    ),
    number_joiners=words("e"),
    number_scales=words("cem, cento, centos, mil, milhão, milhões"),
    number_units=words(
        "por cento, grau, graus, caloria, calorias, passo, passos, euro, euros, "
        "real, reais, cêntimo, cêntimos, centavo, centavos, dólar, dólares, watt, "
        "watts, volt, volts, ampere, amperes, grama, gramas, quilo, quilos, litro, "
        "litros, metro, metros, quilómetro, quilómetros, quilômetro, quilômetros, "
        "milha, milhas, segundo, segundos, minuto, minutos, hora, horas, dia, dias, "
        "semana, semanas, mês, meses, ano, anos, vez, vezes, pessoas, ponto, "
        "pontos, página, páginas, palavras"
    ),
    percent_words=words("por cento, porcento"),
    half_words=words("a meio, metade, meia altura"),
    a_bit=words("um pouco, um bocadinho, ligeiramente"),
    forecast_day="{day}: {condition}, de {low} a {high}.",
    forecast_rain="Probabilidade de chuva de {rain}%.",
    days_said={
        0: words("hoje, esta noite"),
        1: words("amanhã"),
    },
    decimal_sign=",",
    stop=words(
        "para, pare, cancela, cancelar, esquece, deixa para lá, deixa pra lá, chega"
    ),
    remember=(
        r"lembra-te(?:\s+(?:de\s+)?que)?",
        r"lembre-se(?:\s+(?:de\s+)?que)?",
        r"lembra(?:\s+que)?",
        r"não te esqueças(?:\s+(?:de\s+)?que)?",
        r"não esqueça(?:\s+(?:de\s+)?que)?",
    ),
    forget=(r"esquece(?:\s+que)?", r"esqueça(?:\s+que)?"),
    memory_please=("por favor,?",),
    common_words=words("o, os, as, é, meu, minha, que, quem, como, e, de, do, da"),
    stopwords=words("o, a, os, as, e, de, por, favor"),
    tool_topics={
        "turnon": words("liga, ligar, acende, acender, abre, abrir, ativa, tranca"),
        "turnoff": words(
            "desliga, desligar, apaga, fecha, fechar, destranca, desarma, desarmar, "
            "desativa, desativar"
        ),
        "lightset": words(
            "brilho, porcentagem, percentagem, cento, cor, branco, branca"
        ),
        "setposition": words(
            "posição, persiana, persianas, cortina, cortinas, estore, estores"
        ),
        "setvolume": words("volume"),
        "unmute": words("som"),
        "unpause": words("retoma, continua"),
        "mute": words("silenciar, silencia, mudo"),
        "pause": words("pausa, pausar"),
        "next": words("próxima, próximo, seguinte"),
        "previous": words("anterior"),
        "climate": words("temperatura, graus, aquecimento, termostato"),
        "getlivecontext": words("está, estão, é, qual, quais, estado, aberto, fechado"),
        "timer": words("temporizador, minutos, segundos, alarme"),
        "forecast": words(
            "clima, previsão, amanhã, chuva, chover, choverá, chove, neve, guarda-chuva"
        ),
        "datetime": words("hora, hoje, dia, relógio"),
        "media": words("música, toca, tocar, volume, pausa, próxima, retoma, continua"),
        "list": words(
            "compras, lista, adiciona, comprar, tarefas, tarefa, anota, aponta"
        ),
        "vacuumstart": words("aspirador"),
        "returntobase": words("base, regressa, carregador"),
        "fan": words("ventoinha, ventilador"),
        "memory": words("lembra, esquece"),
        "search": words("pesquisa, procura"),
    },
    small_talk=(
        "olá",
        "oi",
        "bom dia",
        "boa (?:tarde|noite)",
        "obrigad[oa]",
        "tchau",
        "adeus",
        "tudo bem",
        "quem és tu",
        "quem é você",
    ),
    greetings=words("olá, oi"),
    introductions=words("o meu nome é, meu nome é, chamo-me, me chamo"),
    small_talk_tails=words("de novo, amigo"),
    thanks=words("obrigado, obrigada"),
    farewells=words("adeus, tchau, até logo, até mais, boa noite"),
    welcome="De nada!",
    farewell="Adeus!",
    greeted="Olá! Estou bem, obrigado. Como posso ajudar?",
    question_starts=words(
        "está, estão, é, são, qual, quais, quem, onde, quando, como, porque, pode, "
        "podes"
    ),
    tell_me=words("diga-me, diz-me"),
    polite_asks=words("podes, poderias, pode, poderia, você pode"),
    joiners=words("e, depois"),
    wake_calls=words("olá, oi, ei"),
)
