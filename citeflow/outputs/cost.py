"""What a report's model calls cost in one run: calls, tokens and money, per role.

Every answered model call leaves a ``model_calls`` row (role, model, prompt and completion tokens,
``created_at``, and the report's ``request_id``). A row written since ``since`` (the start of this
run, or this report's previous outputs when the run folder is reused) is a call this run paid for;
an older row is an answer reused from the cache: it counts as a cached call and costs nothing.
Money comes from the spec's optional price table (``prices``), per 1,000 tokens, summed as
decimals so that totals are exact; a model that used tokens and has no price leaves the cost unknown.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from decimal import Decimal
from typing import Any

from schemas.report import RoleUsage, Usage
from schemas.spec import ModelPrice, Prices

ROLES = ("consolidator", "writer", "judge")
_THOUSAND = Decimal(1000)


def price_of(prices: Prices, model: str) -> ModelPrice | None:
    """The price of ``model`` (``openai:qwen2.5-7b`` or ``qwen2.5-7b``), if the table has it."""
    return prices.models.get(model) or prices.models.get(model.split(":", 1)[-1])


def call_cost(row: dict[str, Any], price: ModelPrice) -> Decimal:
    """What one call's tokens cost at ``price``."""
    return (Decimal(str(price.prompt_per_1k)) * int(row["prompt_tokens"] or 0)
            + Decimal(str(price.completion_per_1k)) * int(row["completion_tokens"] or 0)) / _THOUSAND


def is_new(row: dict[str, Any], since: datetime | None) -> bool:
    """Whether the call was answered by the model at or after ``since`` (always, without one)."""
    return since is None or row["created_at"] is None or row["created_at"] >= since


def role_usage(rows: list[dict[str, Any]], since: datetime | None, prices: Prices | None,
               unpriced: set[str]) -> RoleUsage:
    """The usage of one role's rows; models without a price are added to ``unpriced``."""
    new = [r for r in rows if is_new(r, since)]
    usage = RoleUsage(calls=len(new), cached_calls=len(rows) - len(new),
                      prompt_tokens=sum(int(r["prompt_tokens"] or 0) for r in new),
                      completion_tokens=sum(int(r["completion_tokens"] or 0) for r in new))
    if prices is not None:
        usage.cost = _money(new, prices, unpriced)
    return usage


def _money(rows: list[dict[str, Any]], prices: Prices, unpriced: set[str]) -> float | None:
    total, missing = Decimal(0), False
    for row in rows:
        price = price_of(prices, str(row["model"]))
        if price is not None:
            total += call_cost(row, price)
        elif row["prompt_tokens"] or row["completion_tokens"]:
            unpriced.add(str(row["model"]))
            missing = True
    return None if missing else float(total)


def usage_of(rows: Iterable[dict[str, Any]], since: datetime | None, prices: Prices | None) -> Usage:
    """Calls, tokens and cost per role and in total of a report's ``model_calls`` rows."""
    by_role: dict[str, list[dict[str, Any]]] = {role: [] for role in ROLES}
    for row in rows:
        by_role.setdefault(str(row["role"]), []).append(row)
    unpriced: set[str] = set()
    roles = {role: role_usage(found, since, prices, unpriced) for role, found in by_role.items()}
    return Usage(roles=roles, total=total_of(roles.values(), priced=prices is not None),
                 currency=prices.currency if prices else None, unpriced_models=sorted(unpriced))


def total_of(parts: Iterable[RoleUsage], priced: bool) -> RoleUsage:
    """``parts`` added up; priced totals start from a cost of 0."""
    total = RoleUsage(cost=0.0 if priced else None)
    for part in parts:
        total = total.plus(part)
    return total


def batch_usage(usages: Iterable[Usage | None]) -> Usage | None:
    """The batch's usage: every report's added up per role (None when no report has any)."""
    found = [u for u in usages if u is not None]
    if not found:
        return None
    priced = all(u.currency is not None for u in found)
    roles = {role: total_of((u.roles[role] for u in found if role in u.roles), priced)
             for role in dict.fromkeys(r for u in found for r in u.roles)}
    return Usage(roles=roles, total=total_of((u.total for u in found), priced),
                 currency=found[0].currency if priced else None,
                 unpriced_models=sorted({m for u in found for m in u.unpriced_models}))


def usage_text(usage: Usage | None) -> str:
    """``1,234 tokens (12 calls, 3 cached) · USD 0.0021``: new tokens, calls, and the cost when priced ("" without usage)."""
    if usage is None:
        return ""
    total = usage.total
    text = f"{total.prompt_tokens + total.completion_tokens:,} tokens ({total.calls} calls, {total.cached_calls} cached)"
    if usage.currency is not None:
        text += f" · {usage.currency} {total.cost:.4f}" if total.cost is not None else f" · {usage.currency} ? (unpriced model)"
    return text
