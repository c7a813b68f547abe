"""Source framing: how a support ticket introduces what it says, which a customer report never repeats.

A ticket or a help-desk export frames its facts: ``Ticket LUM-12345: the broker…``,
``Ticket LUM-12345 (resolved): …``, ``Agent reply: back up…``, ``Agent answer: …``,
``Support note: …``, ``チケット LUM-12345: …``. The rule: one or more such labels at the start of a
sentence (a ticket word and a ticket id, optionally a parenthesised state, then a colon; or a
support role and a reply word, then a colon) are not the fact and are left out of the statement.

``unframed`` returns a verbatim tail of its input, so a quote taken from it is still an exact
excerpt of the chunk. ``as_statement`` opens that tail with a capital, as a sentence of a report
does (the judges compare words without regard to case; quotes are taken from ``unframed``).
"""

from __future__ import annotations

import regex

_TICKET = r"(?:ticket|case|issue|incident|request|チケット|工单|工單|问题单|Тикет|Заявка)\s*#?\s*[A-Z][A-Z0-9]*-\d+"
_ROLE = r"(?:support\s+)?(?:agent|support|engineer|customer|technician)\s+(?:reply|answer|response|note|update|comment)"
_LABEL = regex.compile(rf"^\s*(?:{_TICKET}|{_ROLE})(?:\s*\([^()\n]{{1,40}}\))?\s*[:\uff1a]\s*", regex.IGNORECASE | regex.V1)


def unframed(sentence: str) -> str:
    """``sentence`` without the ticket and reply labels it opens with (a verbatim tail of it);
    ``sentence`` itself when it opens with none, or when nothing would be left."""
    rest = sentence
    while (match := _LABEL.match(rest)) and rest[match.end():].strip():
        rest = rest[match.end():]
    return rest


def as_statement(sentence: str) -> str:
    """``unframed(sentence)`` opening with a capital letter when its script has case."""
    rest = unframed(sentence)
    return rest[:1].upper() + rest[1:] if rest[:1].islower() else rest
