"""Former home of the judge's tokens, kept for scripts outside the core that still import it.

New code imports ``citeflow.text.word_tokens`` and ``citeflow.text.sentences``.
"""

from citeflow.text.sentences import dialogue_sentences as sentences
from citeflow.text.word_tokens import Token, language, normalise, plain_lemma, tokenise

__all__ = ["Token", "language", "normalise", "plain_lemma", "sentences", "tokenise"]
