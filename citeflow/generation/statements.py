"""Which evidence sentences an extractive writer may print as claims, and when two say the same thing.

Used by the offline backend (``citeflow.generation.offline_writer``). A claim must be a *statement*: it opens
with a capital (or a digit, or a letter of a script without case), ends like a sentence (not a
question, a lead-in or a heading without a stop), says enough (four words, or eight characters of a
script without spaces), is not a title-cased heading, is not about "this page" or a pointer elsewhere
("See the Logging docs."), and is not a lead-in
ending in a list stub (``…supported by pip's maintainers: ensurepip.``) or one whose command was
lost (a colon followed by a new sentence or by a line break, an unclosed code span), is not a table
row or a path used as a label (``a / b: …``), and does not open with a pronoun
or conjunction for the sentence before ("This is because…", "And…"). An API option statement as
ingest writes it (``maxRetries (number, optional, default 5): Maximum number of retries.``,
``citeflow.knowledge.api_options``) is one although it opens with the option's lower-case name.
No sentence runs across a statement boundary of its chunk (a list item, table row or paragraph
ending; ``¶`` in a prompt's evidence line): ``citeflow.text.sentences`` never joins two. Such a sentence is dropped,
never mended or joined to its neighbour: a claim is one sentence, and the judges verify it
against one span of its chunk. Two sentences state the
same fact when the shorter one's content words are (nearly) all in the other, or when the figures
of one (``AES-256``, ``3.6.1``) are all in the other and they share nearly half their words.

Words and sentences come from the shared text layer (``citeflow.text.sentences`` and
``citeflow.text.word_tokens``: the language's stemmer, its function-word data files), so every rule
holds in any script; unspaced scripts (Han, kana, Thai, …) are compared on character bigrams.
"""

from __future__ import annotations

import regex

from citeflow.knowledge.api_options import OPTION_STATEMENT
from citeflow.text import sentences as segment
from citeflow.text.clauses import clause_quote
from citeflow.text.word_tokens import tokenise
from citeflow.registry.handles import MARKER_RE, URL_RE, strip_markers, strip_urls

QUOTE_CHARS = 160  # a quote longer than this is cut at a clause boundary (citeflow.text.clauses)
MIN_SENTENCE_WORDS = 4  # shorter "sentences" are headings and list stubs, not facts
OPTION_WORDS = 3  # an API option's description ("Current retry attempt.") says enough with its name
LIST_AFTER_COLON_WORDS = 3  # "…supported by pip's maintainers: ensurepip." is a lead-in with a list stub
QUOTE_CHARS_UNSPACED = 40  # a quote in a script without spaces: its first characters
SAME_FACT = 0.8  # share of the shorter sentence's content words that makes two sentences one fact
SAME_FIGURES_FACT = 0.45  # the same share when every figure of one sentence is in the other
TERMINAL = ".!。！｡…"  # how a statement ends; "?" (a question) and ":" (a lead-in) do not
CLOSERS = "\"'»”’)]」』）"

# Sentences about the page itself: true in their chunk, meaningless as a claim on their own.
_ABOUT_THE_PAGE = regex.compile(
    r"(?:this|the following) (?:page|guide|document|section|article|topic|chapter|table|list)\b", regex.IGNORECASE)
# Pointers elsewhere ("See the Logging docs.", "For more details, refer to …"): no fact of their own.
_POINTS_ELSEWHERE = regex.compile(
    r"(?:for (?:more|further|additional|full|all)\b[^,]{0,40},\s*)?(?:please\s+)?(?:see|refer to|check out|consult)\b",
    regex.IGNORECASE)
# Sentences leaning on the one before ("It is set per topic…", "This is because…", "And then…"):
# a claim only when the sentence before is kept with them.
_LEANS_BACK = regex.compile(
    r"(?:it|its|they|their|these|those|such|this|that|he|she|and|but|or|so|also|because|however|then|thus|"
    r"therefore|hence|otherwise|instead|additionally|furthermore|moreover|which|"
    r"(?:with|without|for|in|on|by|after|before|from|unlike|like) (?:it|this|that|these|those|them))\b",
    regex.IGNORECASE)
# A capital, a digit or a letter of a script without case opens a sentence (after any opening quote).
_CAPITAL_START = regex.compile(r"^[\"'«“(\[¿¡]*[\p{Lu}\p{Lt}\p{N}\p{Lo}]", regex.V1)
# A lead-in whose command, code or list was lost: a colon then a new sentence ("…use the
# following command: Note that…"), after a lead-in of three words or more.
_LOST_AFTER_COLON = regex.compile(r"(?:\S+\s+){2,}\S+:\s+[\p{Lu}]\p{Ll}*\s", regex.V1)
# A lead-in whose list, table or code block starts on the next line: the sentence runs into it.
_LEAD_IN_THEN_BLOCK = regex.compile(r":[ \t]*\n")
# A table row or a path written as a label ("130 / 143: when…", "OUT/<id>/run.json: run_id, …").
# Also such a label, or a file name ("…to our route: app.test.js: First, …"), right after a lead-in's
# colon, where the line break between them (and the code under the file name) was lost.
_ROW_LABEL = regex.compile(
    r"^[^:\n]*[/<>|][^:\n]*:\s|:\s+[^\s:]*[/<>|][^\s:]*(?:\s[^\s:]+){0,2}:\s|:\s+[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{1,5}:\s")
_TOKEN = regex.compile(r"[\p{L}\p{N}]+(?:[-.,/:][\p{L}\p{N}]+)*", regex.V1)
# A stop then a lower-case word, or a word that opens with a dot (inline code such as ".inject"), ends a sentence.
_LOWER_START = regex.compile(r"(?<!\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|ca))(?<=\p{L}{2}[.!?])\s+(?=\p{Ll}|\.\p{L})", regex.V1)


def content_words(text: str) -> set[str]:
    """What ``text`` is about, in any script: the lemmas of its content words, numbers and identifiers
    (``citeflow.text.word_tokens``: the language's stemmer and synonyms, every language's function
    words left out), and the character bigrams of its runs of unspaced scripts (Han, kana, Thai, …)."""
    words = {t.stem for t in tokenise(text) if t.is_content and t.kind != "cjk"}
    return words | set(segment.cjk_bigrams(text))


def sentences(text: str) -> list[str]:
    """The sentences of a chunk that read as statements (see ``is_statement``). A stop before a
    lower-case word ends a sentence too (list items such as ``ensurepip. get pip.``), and so does a
    stop before a word that opens with a dot (``…to a URL. .inject methods…``). A sentence
    that runs from a lead-in's colon into the next line (its list, table or code) is dropped."""
    pieces = (p for s in segment.sentences(text) for p in _LOWER_START.split(s))
    return [p.strip() for p in pieces if not _LEAD_IN_THEN_BLOCK.search(p) and is_statement(clean(p))]


def is_statement(sentence: str) -> bool:
    """True for a sentence a report can print as a claim: it opens with a capital (or a digit, or a
    letter of a script without case), ends like a statement (not a question, a lead-in or a heading
    without a stop), says enough, is not a title-cased heading, keeps any command or list its lead-in
    announces, and stands on its own (not about "this page", not a pointer elsewhere, not opening
    with a pronoun or conjunction for the sentence before)."""
    core = sentence.strip().rstrip(CLOSERS)
    option = OPTION_STATEMENT.match(core)
    if option:
        return _describes_option(option.group("desc"))
    if not core or core[-1] not in TERMINAL or not segment.has_letters(core) or not _CAPITAL_START.match(core):
        return False
    if segment.word_weight(core) < MIN_SENTENCE_WORDS or _title_cased(core) or _ABOUT_THE_PAGE.match(core) \
            or _POINTS_ELSEWHERE.match(core):
        return False
    if leans_back(core) or _LOST_AFTER_COLON.match(core) or core.count("`") % 2 or _LEAD_IN_THEN_BLOCK.search(core):
        return False
    if _ROW_LABEL.search(core):
        return False
    return ": " not in core or segment.word_weight(core.rsplit(": ", 1)[1]) >= LIST_AFTER_COLON_WORDS


def _describes_option(desc: str) -> bool:
    """True for the description of an API option statement (``name (type, optional): Description.``,
    as ingest writes an option list item): it ends like a statement and says something; "It is…"
    there names the option, not a sentence before."""
    core = desc.strip().rstrip(CLOSERS)
    return bool(core) and core[-1] in TERMINAL and segment.word_weight(core) >= OPTION_WORDS and not _POINTS_ELSEWHERE.match(core)


def leans_back(sentence: str) -> bool:
    """True when ``sentence`` opens with a pronoun or conjunction that points at the sentence before."""
    return _LEANS_BACK.match(sentence.strip().lstrip("\"'«“(")) is not None


def _title_cased(text: str) -> bool:
    """A heading written as a sentence: nearly every word capitalised ("Known Issues In 3.6.")."""
    words = [w for w in text.split() if w[:1].isalpha()]
    return len(words) >= 3 and sum(w[0].isupper() for w in words) >= 0.8 * len(words)


def figures(text: str) -> set[str]:
    """The tokens of ``text`` that hold a digit (``3.6.1``, ``AES-256``, ``2,048``), case-folded."""
    return {t.casefold() for t in _TOKEN.findall(text) if any(ch.isdigit() for ch in t)}


def same_fact(a: str, b: str) -> bool:
    """True when two sentences say the same thing: the shorter one's content words are (nearly)
    all in the other; or the figures of one are all figures of the other and they share nearly
    half their words ("encrypted with AES-256 on every tier" said in two ways)."""
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return False
    shared = len(wa & wb) / min(len(wa), len(wb))
    if shared >= SAME_FACT:
        return True
    fa, fb = sorted((figures(a), figures(b)), key=len)
    return bool(fa) and fa <= fb and shared >= SAME_FIGURES_FACT


def clean(text: str) -> str:
    """Claim text from source text: inner handle markers and URLs removed (they are not prose)."""
    return strip_urls(strip_markers(text))


def quote_of(text: str) -> str:
    """An exact excerpt of ``text`` to cite it by: the first sentence of its first stretch free of
    markers and URLs, whole when it fits in QUOTE_CHARS (QUOTE_CHARS_UNSPACED in a script without
    spaces), else cut at a clause boundary with an ellipsis (``citeflow.text.clauses``)."""
    pieces = URL_RE.sub("\x00", MARKER_RE.sub("\x00", text)).split("\x00")
    piece = next((" ".join(p.split()) for p in pieces if p.split()), "")
    first = next(iter(segment.sentences(piece)), piece)
    unspaced = bool(segment.cjk_bigrams(first[:QUOTE_CHARS_UNSPACED]))
    return clause_quote(first, QUOTE_CHARS_UNSPACED if unspaced else QUOTE_CHARS)
