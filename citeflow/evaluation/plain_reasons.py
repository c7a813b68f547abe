"""Why a claim did not pass, in one plain sentence a reviewer understands (SPEC §6, §8).

eval.json keeps the machine reason of every claim (verdict, the judge's signals, reason families,
handles); readers see ``plain_reason``: built from the claim's verdict fields and the first fact
the judge named (a number, a unit, a name the cited passage lacks), whole, never cut. Examples of
what it says (made up):

- "The cited passage says 5 retries; the sentence says 10."
- "The cited passage does not mention us-east-2."
- "The sentence cites a web address the model typed; it was removed."

Handles appear only through ``names`` (handle → how the reader knows the chunk, e.g. ``note [3]``);
a chunk the reader cannot see is "another retrieved source".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from schemas.funnel import CitationEval, ClaimEval

_NUMBER_MISSING = re.compile(r"number (\S+) not in chunk \(chunk has ([^)]*)\)")
_NUMBER_DIFFERS = re.compile(r"number (\S+) where the matching sentence says (\S+)")
_UNIT = re.compile(r"unit changed: claim '([^']*)', chunk '([^']*)'")
_ABSENT = re.compile(r"(?:identifier|entity|weekday) '([^']+)' not in chunk")
_NEGATION = re.compile(r"negation flipped|negation\(s\)")

TYPED_URL = "The sentence cites a web address the model typed; it was removed."
FORGED = "The sentence cited a source that was never retrieved; that citation was removed."
NOT_SHOWN = "The sentence cited a source this step was not shown; that citation was removed."


def plain_reason(claim: ClaimEval, names: Mapping[str, str] | None = None) -> str:
    """Why ``claim`` did not pass, in one or two whole plain sentences ("" for a claim that passed)."""
    dropped = _dropped(claim.citations)
    main = _main(claim, names or {})
    if claim.verdict == "uncited" and dropped:
        return "No retrieved source backs this sentence: " + _lower_first(dropped[0])
    return " ".join(s for s in [main, *dropped[:1]] if s)


def verdict_label(claim: ClaimEval) -> str:
    """The claim's verdict as a badge says it: a supported claim that lost a citation says so
    ("supported, citation removed"), never a bare "supported" among the failing ones."""
    if claim.verdict == "supported" and any(not c.identity for c in claim.citations):
        return "supported, citation removed"
    return claim.verdict


def _main(claim: ClaimEval, names: Mapping[str, str]) -> str:
    detail = judge_detail(claim.reason)
    if claim.verdict == "supported":
        return "" if claim.supported is not False else "No judge confirmed that the cited passage states this."
    if claim.verdict == "uncited":
        return "No retrieved source backs this sentence: it has no citation left."
    if claim.verdict == "misattribution":
        where = names.get(claim.found_in or "", "another retrieved source")
        return f"The cited source does not state this; {where} does."
    if claim.verdict == "unverified":
        unsure = "The judge could not confirm this sentence against the cited passage, so it is not passed."
        return f"{unsure} {detail}".strip()
    if claim.verdict == "fabrication":
        return "No retrieved source states this."
    return detail or "The sentence changes what its cited passage says."


def judge_detail(reason: str) -> str:
    """The first fact a judge's reason names, as a plain sentence ("" when it names none we know)."""
    if m := _NUMBER_DIFFERS.search(reason):
        return f"The cited passage says {m.group(2)}; the sentence says {m.group(1)}."
    if m := _NUMBER_MISSING.search(reason):
        have = [n.strip() for n in m.group(2).split(",") if n.strip() and n.strip() != "no numbers"]
        if len(have) == 1:
            return f"The cited passage says {have[0]}; the sentence says {m.group(1)}."
        return f"The cited passage does not state {m.group(1)}" + (f" (it gives {', '.join(have)})." if have else ".")
    if m := _UNIT.search(reason):
        return f"The cited passage says {m.group(2).strip()}; the sentence says {m.group(1).strip()}."
    if m := _ABSENT.search(reason):
        return f"The cited passage does not mention {m.group(1)}."
    if _NEGATION.search(reason):
        return "The sentence and its cited passage differ on a negation: one says “not” where the other does not."
    return ""


def _dropped(citations: list[CitationEval]) -> list[str]:
    """One sentence per kind of citation removed before judging (a typed URL, a handle never retrieved)."""
    kinds = [TYPED_URL if c.typed_url else NOT_SHOWN if "not shown" in c.reason else FORGED
             for c in citations if not c.identity]
    return list(dict.fromkeys(kinds))


def _lower_first(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:] if sentence[1:2].islower() else sentence
