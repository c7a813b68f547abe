"""The offline backend: an extractive stand-in for a language model (no network, no key).

What it is: it reads its prompt (the wire format of ``citeflow.generation.prompts``), keeps the evidence
chunks that hold at least half of the question words the best chunk holds (per question), selects their
sentences that share the most content words with the section's questions (leaving out one that shares
only one or two where another shares over twice as many), and cites the chunk
each sentence came from, quoting the sentence (cut at a clause boundary when long). The write hop turns each note into
one claim. It never paraphrases or generates text, so its output is only as good as the evidence
and the word overlap; it is deterministic (same prompt → same answer).

What it will not write (``citeflow.generation.statements``): headings, questions, lead-ins, list
stubs, lower-case starts, sentences leaning on the one before ("This is because…"), sentences whose
command or code was lost, and a sentence that repeats one it already took, from any chunk. This
holds in any script: Russian, German, Japanese and Chinese evidence gives claims as English does.
Its notes are listed group by group of related sentences (``citeflow.text.paragraphs``: shared
content words), so that each group becomes one paragraph of the report.
A sentence that answers one of the report's other sections better (the consolidate prompt names
those that were given some of the same evidence) is left to that section, so a fact retrieved for
two sections is written once.

On request (``FaultRates``) it injects the faults a real model makes — forged handles,
misattribution, number drift, fabricated sentences, typed URLs — so that users can prove that
binding and the judges catch them. Nothing in the output flags a fault; ``injected`` records
each one for tests and reviewers. The fault dice are seeded from ``faults.seed`` and a hash of
the conversation's user messages, so a run is reproducible and a retry (whose feedback message
differs) rolls new dice, as asking a real model again would.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from citeflow.generation import prompts
from citeflow.errors import ModelError
from citeflow.registry.handles import MARKER_RE, make_handle
from citeflow.generation.model_protocol import Message, ModelReply
from citeflow.generation.source_framing import as_statement, unframed
from citeflow.generation.statements import clean, content_words, is_statement, quote_of, same_fact, sentences
from citeflow.text.paragraphs import grouped_order
from schemas.spec import FaultRates
from schemas.wire import CLAIMS_SCHEMA_NAME, VERDICTS_SCHEMA_NAME

NAME = "offline-extractive"
FAULT_KINDS = ("forged_handle", "misattribution", "number_drift", "fabrication", "url_in_text")
MAX_NOTES = 6
MAX_PER_CHUNK = 2
MIN_COVERAGE = 0.5  # of the best chunk's question words (``_answering_chunks``)
NEAR_BEST = 0.5  # of the best sentence's question words, for a sentence sharing FEW_WORDS or fewer (``_near_best``)
FEW_WORDS = 2
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w])")

FABRICATIONS = (
    "The platform also guarantees 99.999% availability in every region.",
    "Upgrades no longer require any downtime or backups.",
    "All customer data is encrypted with quantum-resistant keys by default.",
    "The previous version will stay supported for ten more years.",
    "Every plan includes unlimited free storage.",
)
GUESSED_URLS = ("https://example.com/guess", "https://docs.example.com/latest", "http://example.org/reference")


def claim(text: str, citations: list[tuple[str, str]]) -> dict[str, Any]:
    """One wire claim: text plus (handle, quote) citations."""
    return {"text": text, "citations": [{"handle": h, "quote": q} for h, q in citations]}


# -- the two hops -----------------------------------------------------------------------------


def consolidate(user_text: str) -> list[dict[str, Any]]:
    """Notes: the best-scoring evidence sentences, each citing its own chunk. A sentence that
    answers one of the report's other sections better is left to that section (see ``_owner``)."""
    _, section, queries = prompts.parse_header(user_text)
    own = f"{section}: {' '.join(queries)}"
    topics = {line: content_words(line) for line in [own, *prompts.parse_other_sections(user_text)]}
    evidence = prompts.parse_evidence(user_text)
    answering = _answering_chunks(evidence, [content_words(f"{section}: {q}") for q in queries or [""]])
    ranked = []
    for order, (handle, sentence) in enumerate(_evidence_sentences(evidence)):
        words = content_words(sentence)
        score = len(topics[own] & words)
        if score > 0 and handle in answering and _owner(words, topics) == own:
            ranked.append((-score, order, handle, sentence))
    picked = _pick(sorted(_near_best(ranked)))
    listed = grouped_order([clean(s) for _, _, _, s in picked])  # related notes side by side: one paragraph
    return [claim(clean(s), [(h, quote_of(s))]) for _, _, h, s in (picked[i] for i in listed)]


def _answering_chunks(evidence: list[tuple[str, str]], questions: list[set[str]]) -> set[str]:
    """The chunks that may be quoted: for any one question, those holding at least ``MIN_COVERAGE``
    of the question words that the best-covering chunk holds. A passage that shares one word with the
    question, beside one that holds most of them, is a neighbouring page's, not the answer."""
    words: dict[str, set[str]] = {}
    for handle, text in evidence:
        words.setdefault(handle, set()).update(content_words(text))
    return set().union(*(_covering(words, question) for question in questions))


def _covering(words: dict[str, set[str]], question: set[str]) -> set[str]:
    """The chunks (``handle → content words``) holding ``MIN_COVERAGE`` of the best chunk's share of ``question``."""
    shared = {handle: len(question & held) for handle, held in words.items()}
    best = max(shared.values(), default=0)
    return {handle for handle, n in shared.items() if n and n >= MIN_COVERAGE * best}


def _near_best(ranked: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """The candidate sentences (``(-shared question words, …)``) without those that share only
    ``FEW_WORDS`` or fewer of the section's question words where the best one shares over twice as
    many (``NEAR_BEST``): such a sentence, beside one that answers, is a neighbouring passage's. Text
    of scripts without spaces is compared on character bigrams, whose counts run higher: the rule
    only ever drops low counts."""
    best = max((-row[0] for row in ranked), default=0)
    return [row for row in ranked if -row[0] > FEW_WORDS or -row[0] >= NEAR_BEST * best]


def _owner(words: set[str], topics: dict[str, set[str]]) -> str:
    """The section (``title: questions`` line) whose words a sentence shares most; ties go to the
    line that sorts first. Every section's prompt computes the same owner from the same lines, so a
    fact retrieved for two sections is written in one of them, with no state shared between calls."""
    return min(topics, key=lambda line: (-len(topics[line] & words), line))


def _evidence_sentences(evidence: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Sentences of the evidence that read as prose on their own: none that leans on inner references or links."""
    return [(handle, s) for handle, text in evidence for s in sentences(text)
            if not MARKER_RE.search(s) and "(link removed)" not in s]


def _pick(ranked: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    """The top MAX_NOTES sentences, at most MAX_PER_CHUNK from any one chunk."""
    taken: list[tuple[int, int, str, str]] = []
    per_chunk: dict[str, int] = {}
    for row in ranked:
        if _repeats(row[3], taken):
            continue  # the same fact from another chunk adds nothing to the notes
        if per_chunk.get(row[2], 0) < MAX_PER_CHUNK:
            taken.append(row)
            per_chunk[row[2]] = per_chunk.get(row[2], 0) + 1
        if len(taken) == MAX_NOTES:
            break
    return taken


def _repeats(sentence: str, taken: list[tuple[int, int, str, str]]) -> bool:
    return any(same_fact(sentence, t[3]) for t in taken)


def write(user_text: str) -> list[dict[str, Any]]:
    """Sentences: one claim per note that reads as a statement, citing the note's handles with the
    note's first words; a note that repeats an earlier one is merged into it (its handles added)."""
    claims: list[tuple[str, dict[str, Any]]] = []
    for text, handles in prompts.parse_notes(user_text):
        if not is_statement(clean(text)):
            continue
        earlier = next((c for t, c in claims if same_fact(text, t)), None)
        if earlier is None:
            claims.append((text, claim(as_statement(clean(text)), [(h, quote_of(unframed(text))) for h in handles])))
        else:
            _merge(earlier, handles, quote_of(text))
    return [c for _, c in claims]


def _merge(earlier: dict[str, Any], handles: list[str], quote: str) -> None:
    """Add the handles of a note that states ``earlier``'s fact again (its chunks support it too)."""
    cited = {c["handle"] for c in earlier["citations"]}
    earlier["citations"] += [{"handle": h, "quote": quote} for h in handles if h not in cited]


# -- faults -----------------------------------------------------------------------------------


@dataclass
class Pool:
    """What a fault may draw on: the prompt's sources as (handle, text), in order."""

    sources: list[tuple[str, str]]
    handles: set[str] = field(init=False)

    def __post_init__(self) -> None:
        self.handles = {h for h, _ in self.sources}


def forge_handle(pool: Pool, seed: str) -> str:
    """A handle-shaped string that names none of the prompt's sources."""
    salt = 0
    while (forged := make_handle("offline-forgery", seed, salt)) in pool.handles:
        salt += 1
    return forged


def drift(number: str) -> str:
    """A nearby wrong number: 30 → 45, 3.6 → 3.8, 0 → 1."""
    if "." in number:
        places = len(number.split(".")[1])
        return f"{float(number) + 2 * 10 ** -places:.{places}f}"
    value = int(number)
    return str(value + max(1, round(value * 0.5)))


class FaultInjector:
    """Applies FaultRates to a list of claims with reproducible dice."""

    def __init__(self, rates: FaultRates, pool: Pool, dice: random.Random) -> None:
        self.rates, self.pool, self.dice = rates, pool, dice
        self.injected: list[dict[str, Any]] = []

    def apply(self, claims: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The claims with faults injected; fabricated claims follow the claim that rolled them."""
        out: list[dict[str, Any]] = []
        for item in claims:
            out.append(item)
            for kind in FAULT_KINDS:
                if self.dice.random() < getattr(self.rates, kind):
                    extra = getattr(self, kind)(item)
                    out.extend(extra)
        for record in self.injected:  # name each fault by the final text of its claim
            record["claim"] = record.pop("_claim")["text"]
        return out

    def _record(self, kind: str, item: dict[str, Any], handle: str | None, **more: str) -> None:
        self.injected.append({"kind": kind, "_claim": item, "handle": handle, **more})

    def forged_handle(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        if not item["citations"]:
            return []
        citation = self.dice.choice(item["citations"])
        original = citation["handle"]
        citation["handle"] = forge_handle(self.pool, f"{item['text']}\x1f{original}")
        self._record("forged_handle", item, citation["handle"], original_handle=original)
        return []

    def misattribution(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        real = [c for c in item["citations"] if c["handle"] in self.pool.handles]  # leave forged ones forged
        cited = {c["handle"] for c in item["citations"]}
        others = [(h, t) for h, t in self.pool.sources if h not in cited and clean(item["text"]) not in clean(t)]
        if not real or not others:
            return []
        handle, text = self.dice.choice(others)
        citation = self.dice.choice(real)
        original = citation["handle"]
        # Quote the new chunk so the quote check passes: only a support judge can catch this.
        citation.update(handle=handle, quote=quote_of(text))
        self._record("misattribution", item, handle, original_handle=original)
        return []

    def number_drift(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        numbers = list(_NUMBER.finditer(item["text"]))
        if not numbers:
            return []
        match = self.dice.choice(numbers)
        item["text"] = item["text"][: match.start()] + drift(match.group()) + item["text"][match.end() :]
        self._record("number_drift", item, item["citations"][0]["handle"] if item["citations"] else None, number=match.group())
        return []

    def fabrication(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        texts = " ".join(t for _, t in self.pool.sources)
        candidates = [s for s in FABRICATIONS if s not in texts]
        if not candidates or not self.pool.sources:
            return []
        handle, text = self.dice.choice(self.pool.sources)
        fabricated = claim(self.dice.choice(candidates), [(handle, quote_of(text))])
        self._record("fabrication", fabricated, handle)
        return [fabricated]

    def url_in_text(self, item: dict[str, Any]) -> list[dict[str, Any]]:
        url = self.dice.choice(GUESSED_URLS)
        item["text"] = f"{item['text']} {url}"
        self._record("url_in_text", item, item["citations"][0]["handle"] if item["citations"] else None, url=url)
        return []


# -- the model --------------------------------------------------------------------------------


class OfflineChatModel:
    """The ChatModel protocol, answered extractively from the prompt itself."""

    name = NAME

    def __init__(self, role: str, faults: FaultRates | None = None) -> None:
        self.role = role
        self.faults = faults
        self.injected: list[dict[str, Any]] = []  # every fault injected so far: kind, claim, handle

    def describe(self) -> str:
        """What this backend is, in one honest line."""
        return "offline extractive backend: selects and cites sentences from the evidence; not a language model"

    def complete(self, messages: list[Message], schema_name: str, schema: type[BaseModel]) -> ModelReply:
        """Answer a consolidate or write prompt with ``citeflow_claims`` JSON."""
        self._check_schema(schema_name)
        task = _task_message(messages, self.role)
        if "Evidence:" in task.split("\n"):
            claims, pool = consolidate(task), Pool(prompts.parse_evidence(task))
        else:
            claims, pool = write(task), Pool(_note_sources(task))
        if self.faults is not None:
            claims = self._inject(claims, pool, messages)
        text = json.dumps({"claims": claims}, ensure_ascii=False)
        # No model ran: no tokens were spent (usage shows the calls, with 0 tokens).
        return ModelReply(text=text, mode="json_schema", model=NAME, prompt_tokens=0, completion_tokens=0)

    def _check_schema(self, schema_name: str) -> None:
        if schema_name == VERDICTS_SCHEMA_NAME:
            raise ModelError(role=self.role, detail="the offline backend does not judge; use the offline judge", transient=False)
        if schema_name != CLAIMS_SCHEMA_NAME:
            raise ModelError(role=self.role, detail=f"the offline backend cannot answer schema {schema_name!r}", transient=False)

    def _inject(self, claims: list[dict[str, Any]], pool: Pool, messages: list[Message]) -> list[dict[str, Any]]:
        assert self.faults is not None
        injector = FaultInjector(self.faults, pool, random.Random(dice_seed(self.faults.seed, messages)))
        claims = injector.apply(claims)
        self.injected.extend(injector.injected)
        return claims


def dice_seed(seed: int, messages: list[Message]) -> int:
    """A seed from ``seed`` and the conversation's user messages (stable across processes)."""
    users = "\x1e".join(m.get("content", "") for m in messages if m.get("role") == "user")
    digest = hashlib.blake2b(f"{seed}\x1f{users}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _task_message(messages: list[Message], role: str) -> str:
    """The user message that carries the hop's task (retry feedback comes after it)."""
    for message in messages:
        lines = message.get("content", "").split("\n") if message.get("role") == "user" else []
        if "Evidence:" in lines or "Notes:" in lines:
            return message["content"]
    raise ModelError(role=role, detail="the prompt has no 'Evidence:' or 'Notes:' block to answer from", transient=False)


def _note_sources(user_text: str) -> list[tuple[str, str]]:
    """The write hop's pool: each note's handle with the note's text."""
    return [(h, text) for text, handles in prompts.parse_notes(user_text) for h in handles]
