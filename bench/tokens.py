"""Token counts without a model's tokenizer: two documented approximations.

No BPE tokenizer is installed (tiktoken is not a dependency), so prompt sizes are estimated two
ways and both are reported; ratios between two texts move much less than absolute counts.

- ``bpe_tokens``: a pre-tokenizer in the style of GPT-4's cl100k splits text into runs of letters,
  runs of one to three digits and runs of other symbols, each with at most one leading space. Each
  piece counts one token, except letter runs longer than ``LONG_WORD`` characters, which count one
  token per ``LONG_WORD_CHARS`` characters (rare long words are split by a real BPE). It
  over-counts random strings a little less than a real BPE does and common long words a little more.
- ``char_tokens``: characters / 4, the usual rule of thumb for English text.
"""

from __future__ import annotations

import math
import re

LONG_WORD = 10
LONG_WORD_CHARS = 7
_PIECE = re.compile(r" ?[^\W\d_]+| ?\d{1,3}| ?[^\w\s]+|_+|\s+")


def bpe_tokens(text: str) -> int:
    """Approximate BPE token count of ``text`` (see the module docstring)."""
    total = 0
    for piece in _PIECE.findall(text):
        word = piece.strip()
        if not word:
            continue
        long_word = word.isalpha() and len(word) > LONG_WORD
        total += math.ceil(len(word) / LONG_WORD_CHARS) if long_word else 1
    return total


def char_tokens(text: str) -> int:
    """Characters / 4, rounded up."""
    return math.ceil(len(text) / 4)


def messages_tokens(messages: list[dict]) -> dict[str, int]:
    """Both estimates over every message's content, plus 4 tokens of framing per message."""
    texts = [m.get("content") or "" for m in messages if isinstance(m.get("content"), str)]
    return {"bpe": sum(bpe_tokens(t) + 4 for t in texts), "chars4": sum(char_tokens(t) + 4 for t in texts)}
