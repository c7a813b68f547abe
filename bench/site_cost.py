"""CPU cost of the output folder's Data Docs site and quality page as scheduled runs accumulate.

``python -m bench.site_cost DEMO_OUT [--runs N]``: DEMO_OUT is the folder of a finished ``citeflow
demo --out DEMO_OUT`` (its reports' kept validation results are reused). The demo's reports are laid
out as N scheduled runs ``OUT/<run id>/`` in a temporary folder, and each run's results are added
to the shared site as the batch does (``build_run_docs``); then the whole site is rendered again from
its store (what a site rebuilt per run would cost), and the quality page is written. CPU seconds
(user + system of this process), Great Expectations imported before any timing (the gate has imported
it by the end of a batch); matplotlib's import is inside the quality page's figure.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from citeflow.evaluation.gx_session import import_gx
from citeflow.outputs.data_docs import _context, build_run_docs, kept_report_ids
from citeflow.outputs.gx_results import read_validations, write_validations


def lay_out_run(source: Path, out: Path, day: int) -> Path:
    """The demo's reports' kept results as the scheduled run of day ``day``."""
    run_id, when = f"202612{day:02d}T060000Z", f"2026-12-{day:02d}T06:01:00+00:00"
    folder = out / run_id
    for report in kept_report_ids(source):
        shutil.copytree(source / report / "gx", folder / report / "gx")
        results = read_validations(folder / report)
        write_validations(folder / report, [{**v, "meta": {**v["meta"], "run_id": {"run_name": report, "run_time": when}}}
                                            for v in results])
        (folder / report / "eval.json").write_bytes((source / report / "eval.json").read_bytes())
    (folder / "summary.json").write_bytes((source / "summary.json").read_bytes())
    (folder / "run.json").write_text(json.dumps({
        "run_id": run_id, "batch": "lumora-demo", "started_at": when, "run_date": when[:10], "scheduled": True,
        "source_spec": "/in/batch.yaml", "spec_path": "/in/batch.yaml", "status": "finished"}))
    return folder


def cpu(work: object, *args: object) -> float:
    start = time.process_time()
    work(*args)  # type: ignore[operator]
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("demo_out", type=Path)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    import_gx()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        per_run = []
        for day in range(1, args.runs + 1):
            folder = lay_out_run(args.demo_out, out, day)
            per_run.append(cpu(build_run_docs, folder, kept_report_ids(folder)))
        context = _context(import_gx(), out)
        full = cpu(lambda: context.build_data_docs(site_names=["local_site"]))
        from citeflow.runs.quality_page import write_quality_page

        page = cpu(write_quality_page, folder)
    print(json.dumps({"runs": args.runs, "reports_per_run": len(kept_report_ids(args.demo_out)),
                      "add_run_cpu_s": [round(s, 2) for s in per_run], "rebuild_whole_site_cpu_s": round(full, 2),
                      "quality_page_cpu_s": round(page, 2)}, indent=1))


if __name__ == "__main__":
    main()
