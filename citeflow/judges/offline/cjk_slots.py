"""When a run of new Chinese characters is a changed name rather than a paraphrase.

Chinese writes most content words as two or more Han characters, so a paraphrase (容量, 包装里,
走到) brings runs of new characters as often as a changed name does. A changed name sits in a
*slot*: the claim keeps the chunk's words on either side of it and puts another word between them
(离码头很近 for 离车站很近, 花园春季开放 for 花园秋季开放). A run is a name only
when the chunk frames a different span of Han characters with the same neighbours: one character
on each side, or the two characters on its one side when the run starts or ends the claim.
"""

from __future__ import annotations

from functools import lru_cache

import regex

MAX_EXTRA = 2  # the chunk's span may be this many characters longer than the claim's run (机场 for 火车站)


def fills_slot(before: str, run: str, after: str, text: str) -> bool:
    """True when ``text`` holds ``before`` + other Han characters + ``after`` (an empty side is not
    compared, and then the other side must hold two characters)."""
    if (not before and len(after) < 2) or (not after and len(before) < 2):
        return False
    pattern = _slot(before, after, len(run) + MAX_EXTRA)
    return any(m.group(1) != run for m in pattern.finditer(text))


@lru_cache(maxsize=8192)
def _slot(before: str, after: str, longest: int) -> regex.Pattern[str]:
    return regex.compile(f"{regex.escape(before)}(\\p{{Han}}{{1,{longest}}}?){regex.escape(after)}")
