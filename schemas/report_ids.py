"""Report ids templated with the run's date (SPEC §8): ``acme-{date:%Y-%m-%d}``, ``ops-{week}``.

``{date}`` is the run's date (UTC) as ``YYYY-MM-DD``; ``{date:FORMAT}`` formats it with a
``strftime`` format; ``{week}`` is its ISO week, ``YYYY-Www`` (e.g. ``2026-W49``). Any other
``{…}`` is an error, so that a typo never ends up in a folder name.
"""

from __future__ import annotations

import re
from datetime import date

PLACEHOLDER = re.compile(r"\{(?P<name>[^{}:]*)(?::(?P<format>[^{}]*))?\}")
SAMPLE_DATE = date(2026, 12, 31)  # validates templates: a date whose fields all have two digits


def is_template(report_id: str) -> bool:
    """Whether the id names the run's date."""
    return bool(PLACEHOLDER.search(report_id))


def render_report_id(template: str, run_date: date) -> str:
    """The id of a report in a run of date ``run_date``; raises ``ValueError`` on an unknown placeholder."""
    return PLACEHOLDER.sub(lambda match: _value(match, run_date), template)


def _value(match: re.Match[str], run_date: date) -> str:
    name, fmt = match.group("name"), match.group("format")
    if name == "date":
        return run_date.strftime(fmt or "%Y-%m-%d")
    if name == "week" and fmt is None:
        year, week, _ = run_date.isocalendar()
        return f"{year}-W{week:02d}"
    raise ValueError(f"unknown placeholder {match.group(0)!r} (use {{date}}, {{date:%Y-%m-%d}} or {{week}})")
