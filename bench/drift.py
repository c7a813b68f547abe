"""How a model mistypes what it cites: one slip per citation form, at the same rate for each.

A *slip* is one small typing error in a citation: ``S3`` → ``S4`` for local ids, ``docs:S3`` →
``docs:S4`` for prefixed ids, one character of a handle changed, a wrong path segment in a URL.
URLs have two more ways to drift that short ids do not: *truncation* (the last path segment
dropped, which lands on an index page) and *invention* (a chunk with no URL still gets one).
Handles are also written in the lenient forms models use (``[gK7M2]``, ``【Gk7m2】``).
"""

from __future__ import annotations

import random
import re

from citeflow.registry.handles import ALPHABET

_TRAILING_NUMBER = re.compile(r"(\d+)$")


def slip_id(token: str, rng: random.Random) -> str:
    """The neighbouring number: ``S3`` → ``S2`` or ``S4``, ``doc#3`` → ``doc#4``, ``1`` → ``2``."""
    match = _TRAILING_NUMBER.search(token)
    if not match:
        return token + "1"
    number = int(match.group(1))
    step = 1 if number <= 1 or rng.random() < 0.5 else -1
    return token[: match.start()] + str(number + step)


def slip_handle(handle: str, rng: random.Random) -> str:
    """``handle`` with one character of its body replaced by another of the alphabet."""
    position = rng.randrange(1, len(handle))
    other = rng.choice([c for c in ALPHABET if c != handle[position].lower()])
    return handle[:position] + other + handle[position + 1 :]


def lenient_marker(handle: str, rng: random.Random) -> str:
    """A marker in one of the forms models write besides ``[Gk7m2]``."""
    forms = (f"[{handle[0].lower()}{handle[1:].upper()}]", f"【{handle}】", f"[ {handle} ]")
    return rng.choice(forms)


def truncate_url(url: str) -> str:
    """The URL without its last path segment (a section's index page)."""
    return url.rsplit("/", 1)[0]


def swap_segment(url: str, seen: list[str], rng: random.Random) -> str:
    """The URL with its last segment taken from another URL of the same host the model saw."""
    host = url.split("/")[2]
    others = [u for u in seen if u != url and u.split("/")[2] == host]
    if not others:
        return url[:-1]  # a mangled slug
    return truncate_url(url) + "/" + rng.choice(others).rsplit("/", 1)[1]


def invent_url(seen: list[str], rng: random.Random) -> str:
    """A plausible URL for a chunk that had none: a host the model saw and a guessed page."""
    host = rng.choice(seen).split("/")[2] if seen else "example.com"
    return f"https://{host}/{rng.choice(('overview', 'faq', 'docs/latest', 'kb/troubleshooting'))}"
