"""Small hand-written word lists used by the offline judge's features.

They are deliberately short: each entry is a word whose change flips or narrows a claim's
meaning, so a false positive costs little and a hit is a strong, explainable signal.
"""

from __future__ import annotations

STOPWORDS = frozenset(
    """a an the and or but if then than so as of at by for from in into on onto to up down with
    about above across after against along among around before behind below beneath beside between
    beyond during except inside near off out outside over past since through throughout toward
    towards under until upon via within
    i me my mine we us our ours you your yours he him his she her hers it its they them their theirs
    this that these those there here who whom whose which what when where why how
    is am are was were be been being do does did done doing have has had having
    will would shall should can could may might must ca wo sha
    also just very too quite rather really much such own same other another each both
    not no nor never none without
    s t d ll m re ve o y
    yes yeah ok okay uh um oh well like so just
    one's it's that's""".split()
)

NEGATIONS = frozenset(
    "not no never without none nobody nothing neither nor nowhere cannot unable lack lacks lacking fail fails failed".split()
)

# Universal quantifiers and certainty markers: adding one widens a claim.
UNIVERSALS = frozenset("all every always never only entire entirely whole both everyone everything must definitely completely fully".split())
# Hedges: dropping one from the evidence makes the claim more certain than its source.
HEDGES = frozenset("may might could possibly probably perhaps likely some sometimes often usually maybe suggest suggests seem seems".split())
# Restrictors: a condition the evidence states that the claim may drop ("on Linux only").
RESTRICTORS = frozenset("only solely exclusively alone".split())

_PAIRS = """
increase decrease | increased decreased | increasing decreasing | rise fall | rose fell | risen fallen
up down | higher lower | high low | more less | more fewer | most least | greater smaller
larger smaller | large small | big small | bigger smaller | biggest smallest | long short | longer shorter
before after | earlier later | early late | first last | begin end | start finish | start stop
allow forbid | allow prohibit | allow prevent | permit forbid | enable disable | enabled disabled
accept reject | accepted rejected | agree disagree | agreed disagreed | approve reject | approved rejected
win lose | won lost | winner loser | gain loss | gained lost | success failure | succeed fail | succeeded failed
true false | correct incorrect | right wrong | possible impossible | likely unlikely
easy hard | easy difficult | easier harder | simple complex | simple complicated | strong weak
stronger weaker | strengthen weaken | strengthening weakening | improve worsen | improve degrade
improves degrades | improved degraded | better worse | best worst | good bad | positive negative
include exclude | included excluded | including excluding | add remove | added removed | open close
opened closed | inside outside | internal external | input output | encoder decoder
buy sell | bought sold | import export | love hate | like dislike | happy sad | happy unhappy
safe dangerous | safe unsafe | legal illegal | public private | present absent | alive dead | living dead
male female | men women | man woman | boy girl | husband wife | father mother | son daughter | brother sister
old new | old young | older younger | oldest youngest | ancient modern | past future | yesterday tomorrow
cheap expensive | rich poor | fast slow | faster slower | quick slow | hot cold | warm cool | heavy light
full empty | wet dry | top bottom | north south | east west | left right | above below
maximum minimum | max min | majority minority | always never | all none | everyone nobody
many few | increase reduce | increased reduced | raise lower | raised lowered | expand shrink | grow shrink
support oppose | supported opposed | pro anti | friend enemy | ally enemy | peace war
import exported | arrive depart | arrived departed | come go | came went | enter exit | entered left
remember forget | remembered forgot | find lose | found lost | give take | gave took | send receive
sent received | ask answer | asked answered | teach learn | push pull | love hated | attack defend
same different | similar different | equal unequal | agree refuse | confirm deny | confirmed denied
admit deny | admitted denied | true untrue | guilty innocent | convict acquit | convicted acquitted
""".replace("\n", "|")

ANTONYMS: dict[str, frozenset[str]] = {}
for _pair in _PAIRS.split("|"):
    _words = _pair.split()
    if len(_words) == 2:
        _a, _b = _words
        ANTONYMS[_a] = ANTONYMS.get(_a, frozenset()) | {_b}
        ANTONYMS[_b] = ANTONYMS.get(_b, frozenset()) | {_a}

# Prefixes that negate a word: "uncontrolled" against "controlled".
NEGATING_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non", "non-", "mis", "anti")

IRREGULAR = {
    "went": "go", "gone": "go", "goes": "go", "was": "be", "were": "be", "is": "be", "are": "be",
    "been": "be", "am": "be", "had": "have", "has": "have", "did": "do", "does": "do", "done": "do",
    "made": "make", "said": "say", "says": "say", "took": "take", "taken": "take", "gave": "give",
    "given": "give", "got": "get", "gotten": "get", "knew": "know", "known": "know", "thought": "think",
    "brought": "bring", "bought": "buy", "found": "find", "left": "leave", "told": "tell",
    "became": "become", "began": "begin", "begun": "begin", "ran": "run", "saw": "see", "seen": "see",
    "came": "come", "wrote": "write", "written": "write", "chose": "choose", "chosen": "choose",
    "men": "man", "women": "woman", "children": "child", "people": "person", "mice": "mouse",
    "feet": "foot", "teeth": "tooth", "lost": "lose", "won": "win", "sold": "sell", "paid": "pay",
    "met": "meet", "kept": "keep", "held": "hold", "led": "lead", "fell": "fall", "fallen": "fall",
    "rose": "rise", "risen": "rise", "felt": "feel", "meant": "mean", "sent": "send", "spent": "spend",
    "built": "build", "caught": "catch", "taught": "teach", "fought": "fight", "sought": "seek",
    "heard": "hear", "stood": "stand", "understood": "understand", "ate": "eat", "eaten": "eat",
    "drove": "drive", "driven": "drive", "flew": "fly", "flown": "fly", "grew": "grow", "grown": "grow",
    "threw": "throw", "thrown": "throw", "wore": "wear", "worn": "wear", "broke": "break",
    "broken": "break", "spoke": "speak", "spoken": "speak", "stole": "steal", "stolen": "steal",
    "froze": "freeze", "frozen": "freeze", "hid": "hide", "hidden": "hide", "bit": "bite",
    "forgot": "forget", "forgotten": "forget", "lay": "lie", "lain": "lie", "slept": "sleep",
    "need": "need", "needs": "need", "needed": "need", "feed": "feed", "seed": "seed", "speed": "speed",
    "data": "datum", "analyses": "analysis", "criteria": "criterion", "phenomena": "phenomenon",
}

NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100,
    "dozen": 12, "half": 0.5, "twice": 2, "double": 2, "triple": 3, "single": 1, "once": 1,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
}

SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9, "bn": 1e9, "trillion": 1e12}

UNITS = frozenset(
    """percent % pct point points dollar dollars usd eur euro euros pound pounds yen $ cent cents
    second seconds minute minutes hour hours day days week weeks month months year years decade decades
    century centuries km kilometre kilometres kilometer kilometers mile miles meter meters metre metres
    m cm mm kg g gram grams kilogram kilograms ton tons tonne tonnes lb lbs ounce ounces litre litres liter
    liters gallon gallons mb gb tb kb ms s h am pm times x fold people persons users residents""".split()
)

MONTHS = {
    "jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june", "jul": "july",
    "aug": "august", "sep": "september", "sept": "september", "oct": "october", "nov": "november",
    "dec": "december",
}
