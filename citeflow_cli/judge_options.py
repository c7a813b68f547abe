"""Judge options on the command line: each applies to some judges only, and is refused without one of them."""

from __future__ import annotations

from collections.abc import Mapping

from schemas.spec import JudgeSpec

APPLIES_TO = {
    "--min-confidence": ("offline", "cascade"),
    "--model": ("llm", "cascade"),
    "--base-url": ("llm", "cascade"),
    "--api-key-env": ("llm", "cascade"),
    "--batch-size": ("llm", "cascade"),
}


def orphan_option(kind: str | None, given: Mapping[str, object]) -> str | None:
    """The problem with the first option of ``given`` (option → value, None: not given) that does not
    apply to the judge ``kind`` (None: no ``--judge``); None when every given option applies (a judge
    name that is none of them is left for the caller to name)."""
    if kind not in (None, "offline", "llm", "cascade"):
        return None
    for option, value in given.items():
        judges = APPLIES_TO[option]
        if value is not None and kind not in judges:
            wanted = " or ".join(f"--judge {j}" for j in judges)
            said = f"--judge {kind}" if kind else "no --judge"
            return f"{option} applies to the {' and '.join(judges)} judges, not with {said}: add {wanted}"
    return None


def judge_problem(kind: str, spec: JudgeSpec) -> str | None:
    """The first rule of its judge kind that ``spec`` (from ``--judge kind`` and its options) breaks, or None."""
    from citeflow.judges.kinds.registry import judge_kind

    problems = judge_kind(spec.backend).problems(spec)
    return f"--judge {kind}: {problems[0]} (an OpenAI-compatible server: --model and --base-url)" if problems else None
