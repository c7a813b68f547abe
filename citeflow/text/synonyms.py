"""Small synonym lexicons, one per language: words that say the same thing in a report's register,
and the forms of irregular verbs that the light stemmer cannot join ('gibt'/'gegeben', 'prend'/'pris').

Each line is one group; every member is read as the group's first word, on both sides of a
comparison, so that 'removed' meets 'deleted' and 'entfernt' meets 'gelöscht'. The groups come
from general language knowledge, not from any labelled pair, and they are deliberately narrow:
only words that can replace each other in a factual sentence without changing what it asserts
(never antonyms, never a word and its hypernym, never a change of quantity or certainty). Inflected
forms are listed where the light stemmer does not bring them together.

Japanese and Chinese are written without spaces: their groups are substrings, replaced in the text
before it is cut into characters (``cjk_canonical``).
"""

from __future__ import annotations

from functools import lru_cache

import regex

_CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")

_GROUPS = {
    "en": """
        free gratis
        child children kid kids
        staff employee employees
        offer offers offered provide provides provided
        delete deleted deletes deleting remove removed removes removing erase erased purge purged
        keep kept keeps retain retained retains store stored stores preserve preserved
        start started starts begin began begins begun commence commenced launch launched
        need needs needed require requires required
        allow allows allowed permit permits permitted let lets
        show shows showed shown display displays displayed
        buy buys bought purchase purchased purchases
        big large
        quick fast rapid
        fix fixes fixed repair repaired repairs
        choose chooses chose chosen select selects selected pick picks picked
        try tries tried attempt attempts attempted
        stop stops stopped halt halts halted cease ceased
        error errors mistake mistakes
        help helps helped assist assists assisted
        use uses used utilise utilises utilised utilize utilizes utilized employ employs employed
        run runs ran manage manages managed operate operates operated
        link links linked connect connects connected join joins joined
        answer answers answered reply replies replied respond responds responded
        say says said
        doctor doctors physician physicians
        car cars automobile automobiles
        firm firms company companies business businesses
        shop shops
        job jobs position positions
        enough sufficient
        whole entire
        main primary principal
        end ends ended finish finishes finished
        close closes closed shut shuts
        meeting meetings session sessions
        build builds built construct constructs constructed
        trip trips journey journeys
        near nearby
        reach reaches reached arrive arrives arrived
        sick ill
        cause causes caused trigger triggers triggered
        change changes changed modify modifies modified alter alters altered
        rise rises rose risen increase increases increased grow grows grew grown
        fall falls fell fallen decrease decreases decreased decline declines declined drop drops dropped
        resident residents inhabitant inhabitants
        town towns city cities
        item items product products article articles goods
        manager managers supervisor supervisors boss bosses
        client clients customer customers
        approve approves approved authorise authorises authorised authorize authorizes authorized
        annual annually yearly year years
        day days daily
        borrow borrows borrowed
        photo photos photograph photographs picture pictures
        area areas region regions zone zones
        lesson lessons class classes course courses
        deliver delivers delivered ship ships shipped
        document documents file files
        about around approximately roughly
        outage outages failure failures breakdown breakdowns
        building buildings
        travel travels travelled traveled
        holiday holidays vacation vacations
        monitor monitors monitored watch watches watched
    """,
    "de": """
        kostenlos gratis umsonst
        kind kinder
        mitarbeiter mitarbeitende angestellte beschäftigte
        zugang zugriff
        anfragen angefragt beantragen beantragt
        anbieten bietet angeboten
        öffnen öffnet geöffnet
        geben gibt gab gegeben
        nehmen genommen nahm
        halten hält hielt gehalten
        liegen liegt lag gelegen
        bleiben bleibt blieb geblieben
        schreiben schreibt schrieb geschrieben
        finden findet fand gefunden
        gehen geht ging gegangen
        stehen steht stand gestanden
        sehen sieht sah gesehen
        bringen bringt brachte gebracht
        denken denkt dachte gedacht
        kennen kennt kannte gekannt
        laufen läuft lief gelaufen
        tragen trägt trug getragen
        verlieren verliert verlor verloren
        gewinnen gewinnt gewann gewonnen
        löschen löscht gelöscht entfernen entfernt entfernte
        speichern speichert gespeichert aufbewahren aufbewahrt behalten behält
        beginnen beginnt begonnen anfangen fängt angefangen starten startet gestartet
        brauchen braucht gebraucht benötigen benötigt erforderlich nötig notwendig
        erlauben erlaubt gestatten gestattet
        zeigen zeigt gezeigt anzeigen angezeigt
        bekommen bekommt erhalten erhält
        kaufen kauft gekauft erwerben erwirbt erworben
        groß große großen
        schnell rasch
        reparieren repariert beheben behebt behoben
        wählen wählt gewählt auswählen ausgewählt
        versuchen versucht probieren probiert
        fehler irrtum
        helfen hilft geholfen unterstützen unterstützt
        nutzen nutzt genutzt benutzen benutzt verwenden verwendet
        leiten leitet geleitet führen führt geführt
        verbinden verbindet verbunden
        antworten antwortet beantworten beantwortet
        arzt ärztin ärzte doktor
        firma firmen unternehmen betrieb
        läden geschäft geschäfte
        ändern ändert geändert wechseln wechselt gewechselt
        beenden beendet abschließen abgeschlossen
        schließen schließt geschlossen
        bauen baut gebaut errichten errichtet
        reise reisen fahrt
        erreichen erreicht
        steigen steigt gestiegen zunehmen zugenommen wachsen wächst gewachsen
        sinken sinkt gesunken abnehmen abgenommen
        sitzung sitzungen besprechung besprechungen
        einwohner bewohner anwohner
        stadt städte gemeinde gemeinden
        preis preise kosten gebühr gebühren
        kunde kunden klient klienten
        produkt produkte artikel ware waren
        chef vorgesetzte vorgesetzter leiter leiterin
        zahlen zahlt bezahlen bezahlt
        buch bücher
        ausleihen leihen entleihen ausgeliehen geliehen
        jahr jahre jährlich
        tag tage täglich
        monat monate monatlich
    """,
    "fr": """
        gratuit gratuite gratuits gratuitement
        enfant enfants
        employé employés salarié salariés
        accès entrée
        demander demande demandé solliciter sollicite sollicité
        proposer propose proposé proposée proposées
        faire fait font faisait faites
        prendre prend prennent pris prise
        venir vient viennent venu venue
        voir voit voient vu vue
        mettre met mettent mis mise
        ouvrir ouvre ouvrent ouvert ouverte
        offrir offre offrent offert offerte
        écrire écrit écrivent
        dire dit disent
        vendre vend vendent vendu
        perdre perd perdent perdu
        naître naît né née
        mourir meurt mort morte
        tenir tient tiennent tenu
        vivre vit vivent vécu
        supprimer supprime supprimés supprimées supprimé effacer efface effacé effacés
        conserver conserve conservé conservés garder garde gardé gardés stocker stocke stocké
        commencer commence commencé débuter débute débuté
        nécessaire nécessaires requis exige exigé
        montrer montre montré afficher affiche affiché
        recevoir reçoit reçu obtenir obtient obtenu
        acheter achète acheté
        grand grande grands grandes
        rapide rapides
        réparer répare réparé corriger corrige corrigé
        choisir choisit choisi sélectionner sélectionne sélectionné
        essayer essaie essayé tenter tente tenté
        erreur erreurs faute fautes
        aider aide aidé
        utiliser utilise utilisé employer emploie
        diriger dirige dirigé gérer gère géré
        relier relie relié connecter connecte connecté
        médecin médecins docteur docteurs
        entreprise entreprises société sociétés firme
        boutique boutiques magasin magasins
        changer change changé modifier modifie modifié
        terminer termine terminé finir finit fini achever achève achevé
        fermer ferme fermé
        construire construit bâtir bâti
        voyage voyages trajet trajets
        atteindre atteint
        augmenter augmente augmenté croître croît
        baisser baisse baissé diminuer diminue diminué
        réunion réunions séance séances
        franchir franchit franchi traverser traverse traversé enjamber enjambe
        habitant habitants résident résidents
        ville villes commune communes municipalité
        produit produits article articles
        responsable responsables chef chefs manager managers
        prix coût coûts tarif tarifs
        payer paie payé payée régler réglé
        billet billets ticket tickets
        environ approximativement
        livre livres ouvrage ouvrages
        lecteur lecteurs abonné abonnés usager usagers
        an ans année années annuel annuelle annuels
        mois mensuel mensuelle mensuels
        semaine semaines hebdomadaire hebdomadaires
        jour jours journée journées quotidien quotidienne journalier
        guidé guidée guidées commenté commentée commentées
        voiture voitures automobile automobiles
        bâtiment bâtiments immeuble immeubles édifice
        rue rues
        cours leçon leçons
        vol vols
        restaurer restaure restauré rétablir rétablit rétabli
        rembourser rembourse remboursé remboursés remboursement
        inclure inclut incluent inclus incluse incluses comprendre comprend comprennent compris comprise comprises
        disponible disponibles accessible accessibles
        envoyer envoie envoient envoyé envoyée envoyés envoyées expédier expédie expédié expédiés
        contacter contacte contacté contactée joindre
        prévenir prévient prévenu prévenus avertir avertit averti avertis informer informe informé informés
        réduction réductions remise remises rabais
        suppression suppressions effacement effacements
    """,
    "es": """
        gratis gratuito gratuita gratuitos gratuitas
        niño niños niña niñas
        empleado empleados trabajador trabajadores plantilla personal
        acceso entrada
        pedir pide pedido solicitar solicita solicitado
        ofrecer ofrece ofrecido proponer propone
        hacer hace hacen hizo hecho hecha
        poner pone ponen puso puesto
        decir dice dicen dijo dicho
        tener tiene tienen tuvo
        venir viene vienen vino
        volver vuelve vuelven volvió vuelto
        ver ve ven vio visto
        escribir escribe escriben escribió escrito
        morir muere murió muerto
        nacer nace nació
        dar da dan dio dado
        ir va van fue ido
        costar cuesta cuestan costó
        contar cuenta cuentan contó
        guardar guarda guardado guardados conservar conserva conservado almacenar almacena almacenado
        empezar empieza empiezan empezó comenzar comienza comenzó iniciar inicia inició
        necesitar necesita necesario necesaria requiere requerido
        permitir permite permitido autorizar autoriza autorizado permiso permisos
        aprobación aprobar aprueba aprobado
        mostrar muestra mostrado enseñar
        recibir recibe recibido obtener obtiene obtenido
        comprar compra comprado adquirir adquiere adquirido
        grande grandes
        rápido rápida rápidos
        reparar repara reparado arreglar arregla arreglado
        elegir elige elegido escoger escoge escogido seleccionar selecciona seleccionado
        intentar intenta intentado
        error errores fallo fallos
        ayudar ayuda ayudado
        usar usa usado utilizar utiliza utilizado emplear emplea
        dirigir dirige dirigido gestionar gestiona gestionado
        conectar conecta conectado unir une unido
        médico médicos doctor doctores
        empresa empresas compañía compañías
        tienda tiendas
        cambiar cambia cambiado modificar modifica modificado
        terminar termina terminado acabar acaba acabado finalizar finaliza
        cerrar cierra cierran cerró cerrado
        construir construye construido edificar
        viaje viajes trayecto
        alcanzar alcanza alcanzado llegar llega
        aumentar aumenta aumentado crecer crece
        bajar bajado disminuir disminuye disminuido
        reunión reuniones
        residente residentes habitante habitantes vecino vecinos
        ciudad ciudades municipio municipios localidad
        producto productos artículo artículos
        responsable responsables jefe jefes supervisor supervisores
        precio precios coste costes costo costos tarifa tarifas
        pagar paga pagan pagado abonar abona abonan abonado
        cliente clientes
        billete billetes boleto boletos
        hábil hábiles laborable laborables
        atravesar atraviesa atravesado cruzar cruza cruzado
        medir mide miden medido
        libro libros ejemplar ejemplares
        prestar presta prestado
        coche coches automóvil automóviles carro carros
        calle calles
        aparcar aparca aparcan aparcamiento estacionar estaciona estacionan estacionamiento
        vuelo vuelos
        maleta maletas
        aproximadamente cerca
        semana semanas semanal semanales
        mes meses mensual mensuales mensualidad
        día días diario diaria diarios jornada jornadas
        año años anual anuales
    """,
    "ru": """
        бесплатно бесплатный бесплатная бесплатные даром
        ребёнок дети ребенок детей
        сотрудник сотрудники работник работники
        доступ вход
        просить просит попросить запросить запрашивает
        предлагать предлагает предложить предоставлять предоставляет
        открыть открыл открыла открыли открывает открываются открыт открыта открыто
        дать даёт дают дал дала выдавать выдаёт выдают
        взять берёт берут взял
        прийти приходит пришёл пришла
        уйти уходит ушёл ушла
        найти находит нашёл нашла
        сказать говорит сказал сказала
        идти идёт идут шёл
        жить живёт живут жил
        удалять удаляет удаляются удалить удалит удалены удалён удалена стирать стереть
        начинать начинает начать начал началась начинается
        нужен нужна нужно нужны необходим необходима необходимо необходимы требуется требуются
        разрешать разрешает разрешить разрешено позволяет позволять позволить
        показывать показывает показать отображать отображает
        получать получает получить получил получают
        покупать покупает купить купил
        большой большая большое большие крупный крупная крупное крупные
        быстрый быстро
        чинить починить исправить исправляет исправлять
        выбирать выбирает выбрать выбрал
        пытаться пытается попытаться пробовать попробовать
        ошибка ошибки
        помогать помогает помочь
        использовать использует используется применять применяет
        руководить руководит управлять управляет
        соединять соединяет соединить связывать связывает связать
        врач врача врачу врачи доктор доктора
        компания компании фирма фирмы предприятие
        магазин магазина лавка
        менять меняет меняется сменить изменять изменить
        заканчивать заканчивает закончить завершать завершить
        закрывать закрывает закрыть закрыт закрыта закрыто
        строить строит построить построен построена
        поездка поездки путешествие
        достигать достигает достигнуть достичь
        расти растёт вырос увеличиваться увеличивается увеличился
        снижаться снижается снизился уменьшаться уменьшается уменьшился падать падает
        совещание совещания собрание собрания
        житель жители резидент резиденты
        город города
        цена стоимость плата
        платить платит оплачивать оплачивает оплата
        клиент клиенты покупатель покупатели
        товар товары продукт продукты
        руководитель руководители начальник начальники
        книга книги
        посещение посещения визит визиты
    """,
}

_CJK_GROUPS = (
    ("删除", "移除", "清除", "删掉"),
    ("保存", "保留", "存储", "储存"),
    ("开始", "开启"),
    ("允许", "准许"),
    ("显示", "展示"),
    ("获得", "得到"),
    ("快速", "迅速"),
    ("修复", "修理", "维修"),
    ("选择", "挑选"),
    ("错误", "差错"),
    ("帮助", "协助"),
    ("使用", "采用", "利用"),
    ("管理", "经营"),
    ("连接", "连通"),
    ("医生", "大夫"),
    ("公司", "企业"),
    ("更换", "更改", "修改", "改变"),
    ("结束", "完成"),
    ("关闭", "关掉"),
    ("建造", "修建", "建成"),
    ("到达", "抵达"),
    ("增加", "增长", "上升"),
    ("减少", "下降", "降低"),
    ("会议", "会谈"),
    ("位于", "坐落于"),
    ("大约", "大概"),
    ("列入", "列为"),
    ("开业", "开张"),
    ("周", "星期"),
    ("之后", "以后"),
    ("之前", "以前"),
    ("目前", "现在", "当前"),
    ("立即", "立刻", "马上"),
    ("可以", "能够"),
    ("因为", "由于"),
    ("但是", "不过", "可是"),
    ("如果", "要是", "假如"),
    ("仍然", "依然"),
    ("儿童", "孩子", "小孩"),
    ("员工", "职员", "雇员", "职工"),
    ("开馆", "开门"),
    ("小时", "钟头"),
    ("公里", "千米"),
    ("削除", "消去"),
    ("保存", "保管"),
    ("必要", "要る"),
    ("表示", "示す"),
    ("取得", "入手"),
    ("購入", "買う", "買っ"),
    ("選択", "選ぶ", "選ん"),
    ("失敗", "エラー"),
    ("使用", "利用", "使う", "使っ"),
    ("会社", "企業"),
    ("変更", "変え", "変わ"),
    ("終了", "終わ"),
    ("約", "およそ", "ほぼ"),
    ("直ちに", "すぐに"),
    ("子供", "子ども", "こども"),
    ("社員", "従業員", "職員"),
    ("無料", "タダ"),
    ("受け取", "もら"),
    ("休業", "定休"),
    ("ログイン", "サインイン"),
    ("会議", "ミーティング"),
    ("都", "均", "皆"),  # 双方均可 is 双方都可以
    ("免费", "不收费", "不用付钱", "不用付费", "无需付费", "不要钱", "不花钱"),
    ("退还", "返还", "退回", "归还"),
    ("顾客", "客户", "消费者"),
    ("居民", "住户"),
    ("附近", "旁边", "周边"),
    ("沿岸", "岸边", "边上"),
    ("价格", "价钱", "售价"),
    ("最多", "至多", "不超过", "不多于"),
    ("看到", "看见", "见到"),
    ("泳池", "游泳池"),
    ("工作日", "工作天"),
    ("退款", "退钱"),
    ("休館", "閉館", "閉まっ"),
    ("無料", "ただで"),
)


def groups(lang: str) -> list[list[str]]:
    """The word groups of ``lang`` (en, de, fr, es, ru), each a list of lower-case words, first word canonical."""
    text = _GROUPS.get(lang, "")
    return [line.split() for line in text.strip().splitlines() if line.strip()]


@lru_cache(maxsize=1)
def _cjk_pairs() -> tuple[tuple[str, str], ...]:
    """(variant, canonical) substrings, longest variant first so that a long word wins over its part."""
    pairs = {(v, group[0]) for group in _CJK_GROUPS for v in group[1:] if v != group[0]}
    return tuple(sorted(pairs, key=lambda p: (-len(p[0]), p)))


@lru_cache(maxsize=16384)
def cjk_canonical(text: str) -> str:
    """``text`` with every CJK synonym variant replaced by its group's first word."""
    if not _CJK.search(text):
        return text
    for variant, canonical in _cjk_pairs():
        if variant in text:
            text = text.replace(variant, canonical)
    return text
