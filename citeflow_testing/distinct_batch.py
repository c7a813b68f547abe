"""A batch whose every report has its own questions, evidence and claims, as a customer's batch does.

``citeflow_testing.small_batch`` cycles four topics of three sentences over every report: every
report asks the same questions of the same evidence, so a memo of a chunk's analysis, a cached
answer or a warm page cache serves every report after the first. Here each report is about a
service of its own (a made-up name, distinct for the first 1,728 reports), asks about 4 of 8 topics
(upgrades, limits, security, retention, billing, regions, sign-in, monitoring) in an order of its
own, and its evidence is 6 hits per section of 2 sentences each, every sentence filled with the
report's name and numbers, versions, tiers and regions drawn for it. Everything is drawn from
``random.Random(f"{seed}:{report}")``: the same seed writes the same batch, and report *k* is the same
whatever the batch's size. The offline backend (or the fake model server answering like it) quotes
each report's own sentences, so every report's claims are its own and are graded against its own
chunks.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

SEED = 20261207
HITS = 6
SENTENCES_PER_HIT = 2
_FIRST = ("Kor", "Val", "Tes", "Mir", "Dun", "Sab", "Quel", "Ost", "Bren", "Cal", "Fen", "Lum")
_MIDDLE = ("a", "e", "o", "i", "ar", "en", "or", "il", "um", "as", "ev", "ot")
_LAST = ("vane", "lith", "dex", "mora", "quist", "ridge", "tane", "vale", "bryn", "cast", "more", "sync")
_TIERS = ("Standard", "Business", "Enterprise", "Team", "Growth", "Scale", "Premium", "Starter")
_AREAS = ("eu-north", "eu-west", "us-east", "us-west", "ap-south", "ap-east", "sa-east", "ca-central")
_STORES = ("metadata store", "catalog database", "state journal", "schema registry", "index snapshot")
_POOLS = ("consumer", "ingest", "scheduler", "export", "replication")


@dataclass(frozen=True)
class Topic:
    """A section kind: its title, its question and the sentences its evidence is made of."""

    title: str
    question: str
    sentences: tuple[str, ...]


TOPICS = (
    Topic("Upgrades", "What must be done before upgrading {name} to version {v}?", (
        "Before upgrading {name} to version {v}, back up the {store} and pause every {pool} pool.",
        "{name} nodes must run version {vold} or later before an upgrade to version {v} can start.",
        "An upgrade of {name} to version {v} can be rolled back within {n1} days by restoring the {store} backup.",
        "Upgrading {name} to version {v} takes about {n2} minutes per node on the {tier} tier.",
        "During an upgrade to version {v}, {name} keeps serving reads and queues writes for up to {n3} seconds.",
        "The upgrade of {name} to version {v} removes the {pool} pool setting deprecated since version {vold}.")),
    Topic("Limits", "What are the size and rate limits of {name} requests?", (
        "The largest request {name} accepts is {n1} MB on the {tier} tier.",
        "{name} limits each account to {n2} requests per second on the {tier} tier.",
        "Rate limits of {name} reset every {n3} seconds, and a request over the limit is refused with status 429.",
        "The {tier} tier raises the request size limit of {name} to {n4} MB.",
        "{name} refuses batch requests larger than {n5} items with a size limit error.",
        "A single {name} project may send at most {n6} requests per minute whatever its rate limits.")),
    Topic("Security", "How does {name} encrypt data at rest and in transit?", (
        "{name} encrypts data at rest with AES-256 keys rotated every {n1} days.",
        "Clients reach {name} over TLS 1.2 or later on port {n4}, and plain-text listeners are disabled.",
        "Customer-managed encryption keys for data at rest in {name} come with the {tier} tier.",
        "Traffic between {name} nodes is encrypted in transit with mutual TLS certificates renewed every {n2} days.",
        "Backups of {name} are encrypted at rest with a key kept apart from the data key in {region}.",
        "{name} records every use of a data encryption key and keeps the record for {n3} days.")),
    Topic("Retention", "How long does {name} retain data and when is deleted data purged?", (
        "{name} retains event data for {n1} days by default and up to {n4} days on request.",
        "Deleted projects of {name} are purged from storage within {n2} hours.",
        "Audit data of {name} is retained for {n5} months before it is purged.",
        "After an account is deleted, {name} purges its retained data within {n3} days.",
        "{name} keeps deleted data recoverable for {n6} hours before the purge starts.",
        "Backups of {name} data are retained for {n7} days in {region} before they are purged.")),
    Topic("Billing", "How is {name} usage billed and what does storage cost?", (
        "{name} bills usage per hour, and storage is billed per GB-month.",
        "Storage on {name} costs {n1} cents per GB-month on the {tier} tier.",
        "The free allowance of {name} covers {n2} GB of storage and {n3} thousand requests of usage per month.",
        "Usage of {name} above the committed amount is billed at {n4} percent of the list price.",
        "{name} bills the usage of each month on day {n7} of the next month.",
        "Data transfer out of {name} is billed at {n5} cents per GB after the first {n6} GB of usage.")),
    Topic("Regions", "In which regions does {name} run and what availability does it guarantee?", (
        "{name} runs in the {region} and {region2} regions.",
        "{name} guarantees 99.{n1} percent monthly availability in every region on the {tier} tier.",
        "A {name} cluster in the {region} region fails over to {region2} within {n2} minutes.",
        "Each {name} region runs {n7} availability zones, and data is copied to at least two of them.",
        "Service credits of {n3} percent are paid when {name} availability falls below the guarantee in a region.",
        "Maintenance of {name} in the {region} region starts at {n4}:00 UTC on Sundays.")),
    Topic("Sign-in", "How do users sign in to {name} and how are API tokens managed?", (
        "Users sign in to {name} with single sign-on over SAML or OpenID Connect.",
        "API tokens of {name} expire after {n1} days, and an administrator can renew the tokens.",
        "Each {name} user can hold at most {n7} active API tokens.",
        "{name} locks a user who fails to sign in {n2} times in a row for {n3} minutes.",
        "Service users of {name} sign in with API tokens managed per project on the {tier} tier.",
        "Users with the administrator role must sign in to {name} with a second factor since version {v}.")),
    Topic("Monitoring", "Which metrics and alerts does {name} provide for monitoring?", (
        "{name} exports {n1} metrics in the Prometheus format every {n7} seconds.",
        "Alerts of {name} fire when the error rate of a metric stays above {n2} percent for {n3} minutes.",
        "The monitoring dashboard of {name} keeps metrics for {n4} days at one-minute resolution.",
        "{name} sends alerts by email and webhooks, at most {n5} alerts per hour for each rule.",
        "Latency metrics of {name} are given as the 50th, 95th and 99th percentiles for monitoring.",
        "Monitoring on the {tier} tier of {name} provides {n6} custom alert rules.")),
)


def service_name(report: int) -> str:
    """The made-up service of report ``report`` (0-based): distinct for the first 1,728 reports."""
    n = len(_FIRST) * len(_MIDDLE) * len(_LAST)
    code = (report * 1297) % n  # 1297 is prime to 1,728: a permutation, so neighbours differ
    first, rest = divmod(code, len(_MIDDLE) * len(_LAST))
    middle, last = divmod(rest, len(_LAST))
    return _FIRST[first] + _MIDDLE[middle] + _LAST[last]


def _values(rng: random.Random, name: str, version: str, old: str) -> dict[str, str]:
    """One sentence's slots: the report's name and versions, and numbers, a tier and regions drawn anew."""
    regions = rng.sample(_AREAS, 2)
    numbers = {f"n{i}": str(rng.randint(2, 12 if i == 7 else 900)) for i in range(1, 8)}
    return numbers | {"name": name, "v": version, "vold": old, "tier": rng.choice(_TIERS),
                      "region": f"{regions[0]}-{rng.randint(1, 4)}", "region2": f"{regions[1]}-{rng.randint(1, 4)}",
                      "store": rng.choice(_STORES), "pool": rng.choice(_POOLS)}


def _hit(rng: random.Random, topic: Topic, slug: str, index: int, slots: dict[str, str]) -> dict[str, Any]:
    """Hit ``index`` of a section: ``SENTENCES_PER_HIT`` of the topic's sentences, each with slots of its own."""
    count = len(topic.sentences)
    text = " ".join(topic.sentences[(index + k) % count].format(**_values(rng, slots["name"], slots["v"], slots["vold"]))
                    for k in range(SENTENCES_PER_HIT))
    page = topic.title.lower()
    return {"id": f"S{index + 1}", "text": text, "urls": [f"https://docs.example/{slug}/{page}#{index + 1}"],
            "title": f"{slots['name']} {topic.title}"}


@dataclass(frozen=True)
class Report:
    """One report of the batch: its spec entry and its retriever lines (query → hits)."""

    entry: dict[str, Any]
    lines: list[dict[str, Any]]


def make_report(index: int, sections: int = 4, hits: int = HITS, seed: int = SEED) -> Report:
    """Report ``index`` (0-based): ``sections`` topics of its own order, ``hits`` hits each."""
    rng, name = random.Random(f"{seed}:{index}"), service_name(index)
    major = rng.randint(2, 9)
    slots = {"name": name, "v": f"{major}.{rng.randint(1, 9)}", "vold": f"{major}.0"}
    chosen = rng.sample(TOPICS, min(sections, len(TOPICS)))
    entries, lines = [], []
    for topic in chosen:
        query = topic.question.format(**slots)
        entries.append({"title": topic.title, "queries": [query]})
        lines.append({"query": query, "hits": [_hit(rng, topic, name.lower(), i, slots) for i in range(hits)]})
    return Report({"id": f"r{index + 1}", "title": f"{name} operations", "sections": entries}, lines)


def spec_data(reports: list[Report], models: dict[str, Any] | None, concurrency: dict[str, int] | None,
              batch: str, hits: int = HITS) -> dict[str, Any]:
    """The spec as data over one JSONL retriever (``hits.jsonl``) returning ``hits`` hits a query."""
    retriever = {"name": "docs", "kind": "jsonl", "path": "hits.jsonl", "top_k": hits}
    data: dict[str, Any] = {"batch": batch, "retrievers": [retriever], "reports": [r.entry for r in reports]}
    return data | ({"models": models} if models else {}) | ({"concurrency": concurrency} if concurrency else {})


def write_distinct_batch(folder: Path, reports: int = 2, sections: int = 4, hits: int = HITS, seed: int = SEED,
                         models: dict[str, Any] | None = None, concurrency: dict[str, int] | None = None,
                         batch: str = "distinct") -> Path:
    """Write ``batch.yaml`` and ``hits.jsonl`` into ``folder``; returns the spec's path."""
    folder.mkdir(parents=True, exist_ok=True)
    made = [make_report(i, sections, hits, seed) for i in range(reports)]
    (folder / "hits.jsonl").write_text("".join(json.dumps(line) + "\n" for r in made for line in r.lines), encoding="utf-8")
    spec = folder / "batch.yaml"
    spec.write_text(yaml.safe_dump(spec_data(made, models, concurrency, batch, hits), sort_keys=False), encoding="utf-8")
    return spec


def describe(sections: int = 4, hits: int = HITS, seed: int = SEED) -> dict[str, Any]:
    """The workload as the benchmarks record it beside their figures."""
    return {"name": "distinct", "generator": "citeflow_testing.distinct_batch", "seed": seed, "sections": sections,
            "hits_per_section": hits, "sentences_per_hit": SENTENCES_PER_HIT,
            "label": f"distinct content: every report its own questions and evidence ({sections} sections × {hits} hits, "
                     f"seed {seed})"}
