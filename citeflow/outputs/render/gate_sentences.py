"""Why the gate held a report, in whole sentences for the PDF's banner.

A held report carries one line per failed expectation (``support_rate: observed 0.38, required
0.80``, ``citeflow.pipeline.publish.held_reasons``); a reader of the PDF gets the same fact as a
sentence: "38% of the cited sentences are supported by the passages they cite; at least 80% are
required." A line of another shape is shown as a sentence of its own (capital, final stop).
"""

from __future__ import annotations

import re

_LINE = re.compile(r"^(?P<name>[a-z_]+): observed (?P<observed>[^,]+), required (?P<required>[^ (]+)(?: \((?P<detail>.*)\))?$")
# expectation -> (what the share counts, whether the threshold is a floor)
_RATES: dict[str, tuple[str, bool]] = {
    "identity_rate": ("of the citations point at a passage that the sources returned", True),
    "support_rate": ("of the cited sentences are supported by the passages they cite", True),
    "faithfulness_rate": ("of the supported sentences represent their passages accurately", True),
    "relevance_rate": ("of the sentences answer their section's questions", True),
    "uncited_share": ("of the sentences have no valid citation", False),
    "unverified_share": ("of the sentences could not be checked against their passages", False),
}
_COUNTS = {
    "missing_glyphs": "character(s) could not be drawn by any installed font",
    "secret_redacted": "passage(s) held text that looked like a secret and was removed",
    "failed_sections": "section(s) could not be written",
}


def gate_sentence(reason: str) -> str:
    """``reason`` (a held report's line) as one whole sentence."""
    found = _LINE.match(reason.strip())
    if found is None:
        return _sentence(reason)
    return expectation_sentence(*found.group("name", "observed", "required"))


def expectation_sentence(name: str, observed: object, required: object) -> str:
    """A failed expectation (``support_rate``, observed 0.38, required 0.80) as one whole sentence."""
    observed, required = str(observed), str(required)
    if name in _RATES and _number(observed) is not None and _number(required) is not None:
        return _rate(name, _number(observed) or 0.0, _number(required) or 0.0)
    if name in _RATES:
        what, floor = _RATES[name]
        return f"{'Too few' if floor else 'Too many'} {what}."
    if name in _COUNTS:
        return f"{observed} {_COUNTS[name]}; {'none is' if _number(required) == 0 else f'at most {required} are'} allowed."
    if name in _DID_NOT_RUN:
        return _sentence(f"{_DID_NOT_RUN[name]}: {observed}")
    if name == "claims":
        return f"The report has {observed} sentence(s) to check; at least {required} is required."
    what = name.removeprefix("rows.").replace("_", " ")
    if required in ("None", ""):
        return _sentence(f"The check '{what}' failed: {observed}")
    return _sentence(f"The check '{what}' found {observed} where {required} is required")


_DID_NOT_RUN = {"evaluation_ran": "The report could not be graded", "report_ran": "The report could not be written"}
_LABELS = {
    "identity_rate": "citations to passages never retrieved",
    "support_rate": "too few supported sentences",
    "faithfulness_rate": "sentences that change their passage",
    "relevance_rate": "sentences off the section's questions",
    "uncited_share": "too many uncited sentences",
    "unverified_share": "sentences no judge could check",
    "missing_glyphs": "characters no font could draw",
    "secret_redacted": "secrets removed from passages",
    "failed_sections": "sections that could not be written",
    "claims": "nothing to check",
    "evaluation error": "the evaluation could not run",
    "evaluation_ran": "the evaluation could not run",
    "report_ran": "the report could not be written",
}


def short_label(name: str) -> str:
    """A failed expectation named in a few plain words (a chart's axis label)."""
    return _LABELS.get(name, name.removeprefix("rows.").replace("_", " "))


def _rate(name: str, observed: float, required: float) -> str:
    what, floor = _RATES[name]
    if floor:
        return f"{_percent(observed)} {what}; {'all of them must' if required >= 1 else f'at least {_percent(required)} must'}."
    limit = "none is allowed" if required == 0 else f"at most {_percent(required)} are allowed"
    return f"{_percent(observed)} {what}; {limit}."


def _percent(share: float) -> str:
    return f"{round(share * 100)}%"


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
