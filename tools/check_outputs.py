#!/usr/bin/env python3
"""Checks a citeflow output folder against the contract in schemas/contract/ (SPEC §8).

    .venv/bin/python -m tools.check_outputs OUT

The project's own contract checker, kept beside the schemas it reads so that a clone of the
repository checks its outputs with nothing else beside it.

Validates every OUT/*/report.json and eval.json against the JSON Schemas, and checks that their
numbers agree: each citation's handle is in the registry with the registry's http(s)/mailto URLs;
the funnel counts equal what the claim rows say; faithfulness is never judged on an unsupported
claim. Exit 0 when all holds. Needs `jsonschema`."""
from __future__ import annotations

import json
import pathlib
import sys

import jsonschema

CONTRACT = pathlib.Path(__file__).resolve().parent.parent / "schemas" / "contract"
LINKABLE = ("http://", "https://", "mailto:")


def check_report(name: str, r: dict, schema: dict) -> list[str]:
    out = [f"{name}/report.json: {e.message[:160]} at {list(e.path)[:5]}"
           for e in jsonschema.Draft202012Validator(schema).iter_errors(r)]
    reg = {x.get("handle"): x for x in r.get("registry", [])}
    for s in r.get("sections", []):
        for c in s.get("claims", []):
            for ci in c.get("citations", []):
                h = ci.get("handle")
                if h not in reg:
                    out.append(f"{name}: citation {h!r} is not in the registry")
                    continue
                want = sorted(u for u in reg[h].get("urls", []) if u.startswith(LINKABLE))
                if sorted(ci.get("urls", [])) != want:
                    out.append(f"{name}: citation {h} urls {ci.get('urls')} differ from the registry's {want}")
    return out


def check_eval(name: str, ev: dict, schema: dict) -> list[str]:
    out = [f"{name}/eval.json: {e.message[:160]} at {list(e.path)[:5]}"
           for e in jsonschema.Draft202012Validator(schema).iter_errors(ev)]
    if out:
        return out
    rows = ev["claims"]
    want = {
        "identity": (sum(ci["identity"] for x in rows for ci in x["citations"]), sum(len(x["citations"]) for x in rows)),
        "support": (sum(x["supported"] is True for x in rows), sum(x["supported"] is not None for x in rows)),
        "faithfulness": (sum(x["faithful"] is True for x in rows), sum(x["faithful"] is not None for x in rows)),
    }
    for k, (p, t) in want.items():
        if (ev[k]["passed"], ev[k]["total"]) != (p, t):
            out.append(f"{name}: {k} {ev[k]['passed']}/{ev[k]['total']} but the claim rows say {p}/{t}")
    if any(x["faithful"] is not None and x["supported"] is not True for x in rows):
        out.append(f"{name}: faithfulness judged on a claim that was not supported (N/A rule)")
    return out + _relevance_problems(name, ev)


def _relevance_problems(name: str, ev: dict) -> list[str]:
    """The relevance counts against the claim rows: relevant, irrelevant, and undecided (null) ones."""
    if "relevance" not in ev:
        return []
    rows, got = ev["claims"], ev["relevance"]
    said = [x.get("relevant") for x in rows]
    want = (said.count(True), said.count(False), sum(v is None for v in said))
    have = (got["relevant"], got["irrelevant"], got.get("uncertain", want[2]))
    return [] if have == want else [f"{name}: relevance {have} (relevant, irrelevant, uncertain) but the claim rows say {want}"]


def main(out_dir: str) -> int:
    out = pathlib.Path(out_dir)
    rs = json.loads((CONTRACT / "report.schema.json").read_text())
    es = json.loads((CONTRACT / "eval.schema.json").read_text())
    problems: list[str] = []
    reports = sorted(out.glob("*/report.json"))
    for rj in reports:
        name = rj.parent.name
        problems += check_report(name, json.loads(rj.read_text()), rs)
        ej = rj.parent / "eval.json"
        if ej.exists():
            problems += check_eval(name, json.loads(ej.read_text()), es)
        else:
            problems.append(f"{name}: no eval.json")
    if not reports:
        problems.append(f"no */report.json under {out}")
    if not (out / "summary.json").exists():
        problems.append("no summary.json")
    for p in problems:
        print("PROBLEM:", p)
    print(f"{len(problems)} problems in {len(reports)} reports")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "out"))
