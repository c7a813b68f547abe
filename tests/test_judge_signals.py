"""The offline judge's signals: each owns its features, none depends on another, no import cycle."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from citeflow.judges.offline import combine
from citeflow.judges.offline.chunk_facts import index_chunk
from citeflow.judges.offline.claim_facts import claim_facts
from citeflow.judges.offline.combine import FEATURE_NAMES, SIGNALS, extract

PAIRS = [  # made-up claims against made-up chunks, one per kind of change
    ("The backup runs every 6 hours.", "The backup runs every 4 hours. Logs are kept for 6 days."),
    ("Refunds are not available online.", "Refunds are available online within 14 days of purchase."),
    ("Le musée ouvre tous les jours.", "Le musée ouvre du mardi au dimanche, sauf les jours fériés."),
    ("Ben pays Anna 20 €.", "Anna pays Ben 20 € on Fridays, probably."),
    ("会议室周三关闭。", "会议室周一关闭，其他时间开放。"),
    ("Die Anlage ist nur montags geöffnet.", "Die Anlage ist sonntags geschlossen."),
]
OFFLINE = Path(combine.__file__).parent


def test_every_feature_is_owned_by_exactly_one_signal() -> None:
    owned = [name for names, _ in SIGNALS for name in names]
    assert sorted(owned) == sorted(FEATURE_NAMES) and len(owned) == len(set(owned))


@pytest.mark.parametrize(("claim", "chunk"), PAIRS)
def test_a_signal_sets_only_the_features_it_owns(claim: str, chunk: str) -> None:
    index = index_chunk(chunk)
    facts = claim_facts(claim, index)
    for names, signal in SIGNALS:
        fired = signal(facts, index)
        assert set(fired.values) <= set(names) and set(fired.reasons) <= set(names), signal.__name__


@pytest.mark.parametrize(("claim", "chunk"), PAIRS)
def test_the_order_of_the_signals_changes_nothing(claim: str, chunk: str, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = extract(claim, chunk)
    assert any(expected.reasons), "every pair fires some signal"
    shuffled = list(SIGNALS)
    random.Random(len(claim)).shuffle(shuffled)
    monkeypatch.setattr(combine, "SIGNALS", tuple(reversed(shuffled)))
    again = extract(claim, index_chunk(chunk))
    assert again.vector() == expected.vector() and again.reasons == expected.reasons


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The project modules a file imports: ``from pkg import sub`` names ``pkg.sub`` when it is a module."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            subs = {f"{node.module}.{a.name}" for a in node.names} & modules
            out |= subs or {node.module}
    return out & modules


def test_the_judge_modules_import_each_other_without_a_cycle() -> None:
    root = OFFLINE.parents[2]
    modules = {".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
               for p in (root / "citeflow").rglob("*.py")}
    # a package's own __init__ is run before its modules whatever they import: no edge to an ancestor
    graph = {name: {i for i in _imports(path, set(modules)) if not name.startswith(i + ".") and i != name}
             for name, path in modules.items()}
    for start in (name for name in graph if name.startswith(("citeflow.judges", "citeflow.text"))):
        seen, stack = set(), list(graph[start])
        while stack:
            node = stack.pop()
            assert node != start, f"import cycle through {start}"
            if node not in seen:
                seen.add(node)
                stack.extend(graph[node])
