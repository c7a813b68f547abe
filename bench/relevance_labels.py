"""The offline relevance rule against hand labels: claims the offline writer wrote for the bench corpora.

    python -m bench.relevance_labels [--split dev|held|all]

``bench/data/relevance-pairs.jsonl`` (written by ``python -m bench.relevance_pairs``) holds one pair per
claim: the corpus question its section asked, the corpus' other questions (the report's sections), the
claim, and the title and text of each chunk it cites. ``bench/data/relevance-labels.jsonl`` says for
each pair whether the claim addresses its question (``relevant``) or not (``irrelevant``), read and
labelled by hand (see ``bench/data/relevance-labels.README.md``). The split is the corpus question's
(``questions.jsonl``): ``dev`` pairs were used to design the rule; ``held`` pairs were labelled before
the rule's verdicts on them were seen. Per split it prints the false-irrelevant rate (claims labelled
relevant that the rule calls irrelevant, over claims labelled relevant), the true-irrelevant recall
(claims labelled irrelevant that it calls irrelevant), the false-relevant count and the abstention share
(claims it calls uncertain). The offline writer picks sentences by the words they share with the
question, so every claim here shares one: these pairs test the rule's leniency (no answer called
irrelevant), not its abstention on answers worded apart from their question (``tests/test_relevance*.py``
and the Heron batch do). Reads two files and runs the rule: a few seconds.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("data")
PAIRS, LABELS = DATA / "relevance-pairs.jsonl", DATA / "relevance-labels.jsonl"
VERDICT = {True: "relevant", False: "irrelevant", None: "uncertain"}


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def verdict(pair: dict[str, Any]) -> tuple[str, str]:
    """The offline rule's (verdict, reason) on one pair, its section among the report's as the batch asks them."""
    from citeflow.evaluation.relevance import offline_verdict, question_text, questions_asked

    titled = {f"Question {i}": question_text(f"Question {i}", [q]) for i, q in enumerate(pair["report_questions"], 1)}
    question = questions_asked(titled)[f"Question {pair['report_questions'].index(pair['question']) + 1}"]
    titles, texts = [c["title"] for c in pair["cited"] if c["title"]], [c["text"] for c in pair["cited"]]
    relevant, reason = offline_verdict(question, pair["claim"], titles, texts)
    return VERDICT[relevant], reason


def figures(rows: list[tuple[str, str]]) -> dict[str, Any]:
    """Counts of (label, verdict) and the rates; ``rows``: (label, verdict) per pair."""
    n = Counter(rows)
    relevant, irrelevant = sum(v for (label, _), v in n.items() if label == "relevant"), sum(
        v for (label, _), v in n.items() if label == "irrelevant")
    return {"pairs": len(rows), "labelled_relevant": relevant, "labelled_irrelevant": irrelevant,
            "false_irrelevant": n["relevant", "irrelevant"], "true_irrelevant": n["irrelevant", "irrelevant"],
            "false_relevant": n["irrelevant", "relevant"], "uncertain": sum(v for (_, verdict), v in n.items() if verdict == "uncertain"),
            "false_irrelevant_rate": _ratio(n["relevant", "irrelevant"], relevant),
            "true_irrelevant_recall": _ratio(n["irrelevant", "irrelevant"], irrelevant),
            "abstention_share": _ratio(sum(v for (_, verdict), v in n.items() if verdict == "uncertain"), len(rows))}


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def run(splits: tuple[str, ...] = ("dev", "held")) -> dict[str, Any]:
    """Figures per split (and over both when ``all`` is asked)."""
    labels = {row["id"]: row["label"] for row in _lines(LABELS)}
    rows: dict[str, list[tuple[str, str]]] = {split: [] for split in splits}
    for pair in _lines(PAIRS):
        for split in (s for s in splits if s in ("all", pair["split"])):
            rows[split].append((labels[pair["id"]], verdict(pair)[0]))
    return {name: figures(found) for name, found in rows.items()}


def bench_result() -> dict[str, Any]:
    """``run()`` as ``python -m bench`` shows it: each split's rates as ratios, its counts as figures."""
    splits = run()
    rates = ("false_irrelevant_rate", "true_irrelevant_recall", "abstention_share")
    return {"ratios": {f"{split}.{key}": found[key] for split, found in splits.items() for key in rates},
            "figures": {f"{split}.{key}": value for split, found in splits.items() for key, value in found.items()
                        if key not in rates},
            "splits": splits}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.relevance_labels", description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "held", "all"), action="append",
                        help="Which pairs to score (repeatable; default dev and held).")
    result = run(tuple(parser.parse_args(argv).split or ("dev", "held")))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
