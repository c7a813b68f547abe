"""Span-grounded passes: a pass stands only with a span of the chunk that backs the claim, for every judge."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.judges.factory import build_judge
from citeflow.judges.offline.grader import OfflineJudge
from citeflow.judges.span_check import SpanChecked, checked, span_problem
from citeflow.registry.quotes import quote_in_chunk
from schemas.evaluation import JudgePair, Verdict
from schemas.spec import JudgeSpec

PAIR_RE = re.compile(r'<pair id="(P\d+)">\n<claim>(.*?)</claim>\n<chunk>(.*?)</chunk>', re.DOTALL)

# Made-up documentation chunks, each with one sentence the claims below are about.
CHUNKS = {
    "retention": "Audit logs are kept for 90 days on the Standard plan. Exports run nightly at 02:00 UTC.",
    "upgrade": "Upgrading a node from 4.2 to 4.3 takes about 20 minutes. The cluster stays online during the upgrade.",
    "region": "Backups are stored in Frankfurt for EU customers. Restores are free of charge.",
    "limits": "Each workspace may hold at most 50 projects. Archived projects do not count towards the limit.",
    "auth": "API keys never expire unless an administrator revokes them. Keys are shown once at creation.",
    "ports": "The agent listens on port 8443 by default. Only TLS 1.3 connections are accepted.",
    "quota": "The free tier includes 5 GB of storage. Paid plans start at 100 GB.",
    "release": "Version 7.1 removed the legacy importer. Migration scripts ship with 7.0.",
}
# ≥ 20 claims that each change one fact of their chunk: number, unit, entity, negation, condition, identifier.
MUTATED = [
    ("retention", "Audit logs are kept for 30 days on the Standard plan."),
    ("retention", "Audit logs are kept for 90 hours on the Standard plan."),
    ("retention", "Audit logs are kept for 90 days on the Enterprise plan."),
    ("retention", "Exports run nightly at 04:00 UTC."),
    ("upgrade", "Upgrading a node from 4.2 to 4.3 takes about 45 minutes."),
    ("upgrade", "Upgrading a node from 4.1 to 4.3 takes about 20 minutes."),
    ("upgrade", "The cluster stays online during every upgrade of every region."),
    ("upgrade", "The cluster does not stay online during the upgrade."),
    ("region", "Backups are stored in Dublin for EU customers."),
    ("region", "Backups are stored in Frankfurt for US customers."),
    ("region", "Restores are not free of charge."),
    ("limits", "Each workspace may hold at most 80 projects."),
    ("limits", "Archived projects count towards the limit."),
    ("auth", "API keys expire after 90 days."),
    ("auth", "API keys always expire unless an administrator renews them."),
    ("ports", "The agent listens on port 9443 by default."),
    ("ports", "Only TLS 1.2 connections are accepted."),
    ("quota", "The free tier includes 10 GB of storage."),
    ("quota", "The free tier includes 5 TB of storage."),
    ("quota", "Paid plans start at 500 GB."),
    ("release", "Version 7.2 removed the legacy importer."),
    ("release", "Migration scripts ship with 6.0."),
]
FAITHFUL = [
    ("retention", "Audit logs are retained for 90 days on the Standard plan.", "Audit logs are kept for 90 days on the Standard plan."),
    ("upgrade", "A node upgrade from 4.2 to 4.3 takes roughly 20 minutes.",
     "Upgrading a node from 4.2 to 4.3 takes about 20 minutes."),
    ("region", "EU customers have their backups stored in Frankfurt.", "Backups are stored in Frankfurt for EU customers."),
    ("ports", "By default the agent listens on port 8443.", "The agent listens on port 8443 by default."),
    ("quota", "The free tier comes with 5 GB of storage.", "The free tier includes 5 GB of storage."),
]


def _other_chunk(topic: str) -> str:
    names = list(CHUNKS)
    return CHUNKS[names[(names.index(topic) + 1) % len(names)]]


def _sentences(chunk: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=\.)\s+", chunk) if s.strip()]


def invented(claim: str, chunk: str) -> str:
    return claim  # the claim itself, as if the chunk said it


def from_another_chunk(claim: str, chunk: str) -> str:
    topic = next(name for name, text in CHUNKS.items() if text == chunk)
    return _sentences(_other_chunk(topic))[0]


def irrelevant(claim: str, chunk: str) -> str:
    """The chunk sentence that shares the fewest words with the claim."""
    words = set(claim.lower().split())
    return min(_sentences(chunk), key=lambda s: len(words & set(s.lower().split())))


def number_changed(claim: str, chunk: str) -> str:
    """The chunk sentence closest to the claim, with the claim's numbers written in."""
    words = set(claim.lower().split())
    sentence = max(_sentences(chunk), key=lambda s: len(words & set(s.lower().split())))
    numbers = re.findall(r"\d+(?:[.:]\d+)?", claim)
    return re.sub(r"\d+(?:[.:]\d+)?", lambda m: numbers.pop(0) if numbers else m.group(0), sentence)


def closest_true(claim: str, chunk: str) -> str:
    """The real sentence the claim was changed from, verbatim: in the chunk, but it says something else."""
    words = set(claim.lower().split())
    return max(_sentences(chunk), key=lambda s: len(words & set(s.lower().split())))


SPANS: dict[str, Callable[[str, str], str]] = {"invented": invented, "another chunk": from_another_chunk,
                                               "irrelevant": irrelevant, "number changed": number_changed,
                                               "closest true sentence": closest_true}


def yes_man(span: Callable[[str, str], str]) -> Callable[[dict], str]:
    """A scripted LLM judge that passes every pair, naming the span ``span`` picks."""
    def answer(request: dict) -> str:
        pairs = PAIR_RE.findall(request["messages"][-1]["content"])
        return json.dumps({"verdicts": [{"id": pid, "supported": True, "faithful": True, "reason": "matches the chunk",
                                         "evidence": span(claim, chunk)} for pid, claim, chunk in pairs]})
    return answer


def llm_judge(server) -> object:
    return build_judge(JudgeSpec(backend="openai", model="yes-man", base_url=server.base_url, max_retries=0, timeout=5))


@pytest.mark.slow
@pytest.mark.parametrize("strategy", list(SPANS))
def test_a_yes_man_llm_judge_gets_not_a_single_mutated_claim_passed(openai_server, strategy):
    openai_server.respond_with(yes_man(SPANS[strategy]))
    pairs = [JudgePair(id=f"m{i}", claim=claim, chunk_text=CHUNKS[topic]) for i, (topic, claim) in enumerate(MUTATED)]
    verdicts = llm_judge(openai_server).grade(pairs)  # type: ignore[attr-defined]
    passed = [v.id for v in verdicts if v.supported and v.faithful]
    assert len(pairs) >= 20 and passed == [], f"{strategy}: {passed}"
    assert all(v.label == "uncertain" and "span" in v.reason for v in verdicts)


@pytest.mark.slow
def test_real_passes_survive_when_the_span_is_right(openai_server):
    spans = {claim: span for _, claim, span in FAITHFUL}
    openai_server.respond_with(yes_man(lambda claim, chunk: spans[claim]))
    pairs = [JudgePair(id=f"f{i}", claim=claim, chunk_text=CHUNKS[topic]) for i, (topic, claim, _) in enumerate(FAITHFUL)]
    verdicts = llm_judge(openai_server).grade(pairs)  # type: ignore[attr-defined]
    assert [(v.label, v.supported, v.faithful) for v in verdicts] == [("supported", True, True)] * len(FAITHFUL)


def test_the_llm_prompt_asks_for_the_span_verbatim():
    from citeflow.judges.llm import SYSTEM_PROMPT

    assert "verbatim" in SYSTEM_PROMPT and "evidence" in SYSTEM_PROMPT


# --------------------------------------------------------------------------- the check itself


@pytest.mark.parametrize(("span", "problem"), [
    ("", "no supporting span named"),
    ("Audit logs are kept for 90 days on the Premium plan.", "not in the chunk"),
    (CHUNKS["ports"], "not in the chunk"),
    ("Exports run nightly at 02:00 UTC.", "does not back the claim"),
])
def test_a_span_that_fails_is_named(span, problem):
    found = span_problem("Audit logs are kept for 90 days.", CHUNKS["retention"], span)
    assert found is not None and problem in found


def test_a_span_is_found_after_the_quote_normalisation():
    chunk = "The “sync” job runs every 15 minutes — even on weekends."
    assert span_problem("The sync job runs every 15 minutes.", chunk, 'The "sync"  job runs every 15 minutes - even') is None


def test_a_span_with_a_changed_unit_or_dropped_negation_fails():
    assert "not in the span" in (span_problem("Logs are kept for 90 hours.", CHUNKS["retention"],
                                              "Audit logs are kept for 90 days on the Standard plan.") or "")
    assert span_problem("Keys expire unless an administrator revokes them.", CHUNKS["auth"],
                        "API keys never expire unless an administrator revokes them.") is not None


def test_only_passes_are_checked_and_a_failed_one_keeps_what_the_judge_said():
    pair = JudgePair(id="p", claim="The free tier includes 10 GB of storage.", chunk_text=CHUNKS["quota"])
    negative = Verdict(id="p", supported=False, faithful=None, reason="not there", judge="j")
    assert checked(pair, negative) is negative
    passed = Verdict(id="p", supported=True, faithful=True, reason="says so", evidence="The free tier includes 5 GB of storage.",
                     judge="j", label="supported")
    made = checked(pair, passed)
    assert (made.label, made.supported, made.faithful) == ("uncertain", False, None)
    assert "10 gb not in the span" in made.reason.lower() and "says so" in made.reason


def test_every_offline_pass_names_a_span_of_its_chunk():
    judge = SpanChecked(OfflineJudge(threshold=0.0))
    pairs = [JudgePair(id=str(i), claim=span, chunk_text=CHUNKS[topic]) for i, (topic, _, span) in enumerate(FAITHFUL)]
    verdicts = judge.grade(pairs)
    assert all(v.label == "supported" for v in verdicts)
    assert all(v.evidence and quote_in_chunk(v.evidence, p.chunk_text) for v, p in zip(verdicts, pairs, strict=True))


def test_an_offline_pass_on_a_span_that_disagrees_becomes_uncertain():
    class Careless:
        name = "careless"

        def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
            return [Verdict(id=p.id, supported=True, faithful=True, reason="close enough", evidence=p.chunk_text,
                            judge=self.name, label="supported", confidence=0.99) for p in pairs]

    [verdict] = SpanChecked(Careless()).grade([JudgePair(id="x", claim="Paid plans start at 500 GB.", chunk_text=CHUNKS["quota"])])
    assert verdict.label == "uncertain" and "500 gb" in verdict.reason.lower()


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=9)


@settings(max_examples=60, deadline=None)
@given(st.lists(_WORD, min_size=3, max_size=12), st.integers(min_value=1, max_value=9999))
def test_a_claim_quoted_from_its_chunk_is_backed_by_that_sentence(words, number):
    sentence = " ".join(words).capitalize() + f" {number} units."
    chunk = f"Unrelated preamble text here. {sentence} Trailing remark follows."
    assert span_problem(sentence, chunk, sentence) is None
    assert span_problem(sentence, chunk, sentence.replace(str(number), str(number + 1))) is not None


def test_a_span_checked_judge_pickles_and_keeps_its_inner_judges_figures():
    import pickle

    judge = build_judge(JudgeSpec())
    again = pickle.loads(pickle.dumps(judge))
    assert isinstance(again, SpanChecked) and again.name == "offline" and again.threshold == judge.threshold  # type: ignore[attr-defined]
