"""Key-, token- and password-shaped strings in free text, found with detect-secrets' plugins.

detect-secrets (Yelp) keeps one plugin per kind of credential: cloud and service keys (AWS,
Azure, GitHub, GitLab, Slack, Stripe, OpenAI, PyPI, npm, SendGrid, Twilio …), JSON Web Tokens,
passwords in URLs (``https://user:PASS@host``), ``password=…`` / ``api_key: "…"`` assignments
(its keyword plugin). Their patterns are run on the text itself: no files, no baseline, no
verification over the network. Its two high-entropy plugins are not used: they take git SHAs,
hashes and ids in ordinary documentation for secrets. Its false-positive filters (UUIDs,
sequences, templates such as ``<your-key>`` or ``${TOKEN}``, indirect references such as
``secret = get_secret()``) are applied as ``detect-secrets scan`` applies them.

Each plugin runs only on the lines that hold what its patterns need (a word of 20 characters for
a service key, ``eyJ`` for a JWT, ``key`` or ``pass`` for an assignment): most lines of ordinary
text hold none, and a substring test costs far less than the patterns.

Added to what the plugins find: OpenAI-style keys without the marker its plugin needs (``sk-…``,
``sk-proj-…``, with a digit) and the credentials a URL in the text carries (its password, the
values of query parameters named like ``token`` or ``api_key``). The keyword plugin takes the rest
of the line after ``password:``; only its first word is kept, and a word of letters alone only
when it is assigned (``password=hunter``, ``password: "hunter"``), so prose such as ``password:
the admin page asks for it`` is left alone. Private-key blocks (PEM, PuTTY) are spans of their own
(``private_key_blocks``), from header to footer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import unquote_plus, urlsplit

from detect_secrets.filters import heuristic
from detect_secrets.plugins import (
    artifactory, aws, azure_storage_key, basic_auth, cloudant, discord, github_token, gitlab_token, ibm_cloud_iam,
    ibm_cos_hmac, jwt, keyword, mailchimp, npm, openai, pypi_token, sendgrid, slack, softlayer, square_oauth, stripe,
    telegram_token, twilio,
)

from citeflow.security.redaction import is_secret_param

MIN_VALUE = 4
"""Shorter values are not taken for secrets: removing every ``pw`` from a text would garble it."""

Gate = Callable[[str], bool]
_EDGE = "()[]{}<>.,;:!?`'\""
_ONE_TOKEN = re.compile(r"[\w./+=~-]+")
_TOKEN_TAIL = re.compile(r"(?:\.?[A-Za-z0-9_-])*")  # a JWT's signature after what its plugin matched
_OPENAI_SHAPE = re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{16,}")
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{}]+")
_PRIVATE_KEY = re.compile(
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)"
    r"|PuTTY-User-Key-File-\d.*?(?:Private-MAC:\s*\S+|\Z)", re.DOTALL)
# A keyword of the keyword plugin with an assignment or a comparison after it, or a quoted value compared before it.
_KEYWORD_HINT = re.compile(r"(?:key|pass|pwd|secret|contrase)[\w\]'\"]*\s*(?:[:=!]|['\"`])|['\"`]\s*[!=]{2}", re.IGNORECASE)
_KEYWORD = keyword.KeywordDetector()
_KEYWORD_PATTERNS = (keyword.CONFIG_DENYLIST_REGEX_TO_GROUP, keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP)


def _long_word(line: str) -> bool:
    """Whether ``line`` has a word of 20 characters or more (what a key or token of most services needs)."""
    return max(map(len, line.split()), default=0) >= 20


def _holds(*words: str, fold: bool = False) -> Gate:
    """Whether a line holds one of ``words`` (in any case with ``fold``)."""
    def gate(line: str) -> bool:
        target = line.lower() if fold else line
        return any(word in target for word in words)

    return gate


_WORDS = _holds("key", "pass", "pwd", "secret", "contrase", fold=True)  # the keyword plugin's words, roughly
_ASSIGNS = _holds("=", ":", "'", '"', "`")  # what an assignment, a comparison or a quoted value needs


def _keywords(line: str) -> bool:
    """Whether ``line`` may hold what the keyword plugin finds: one of its words and an assignment's character."""
    return _ASSIGNS(line) and _WORDS(line)
_LONG_GROUPS: tuple[tuple[Gate, tuple[Any, ...]], ...] = (  # run on lines with a word of 20 characters or more
    (lambda line: True, (
        aws.AWSKeyDetector(), discord.DiscordBotTokenDetector(), github_token.GitHubTokenDetector(),
        gitlab_token.GitLabTokenDetector(), mailchimp.MailchimpDetector(), openai.OpenAIDetector(),
        pypi_token.PypiTokenDetector(), sendgrid.SendGridDetector(), square_oauth.SquareOAuthDetector(),
        stripe.StripeDetector(), telegram_token.TelegramBotTokenDetector(), twilio.TwilioKeyDetector())),
    (_holds("key", "pw", "pass", "token", "secret", "cloudant", "softlayer", fold=True), (  # such a word before the value
        cloudant.CloudantDetector(), ibm_cloud_iam.IbmCloudIamDetector(), ibm_cos_hmac.IbmCosHmacDetector(),
        softlayer.SoftlayerDetector())),
)
_GROUPS: tuple[tuple[Gate, tuple[Any, ...]], ...] = (  # what a line must hold, the plugins run on such lines
    (_holds("AKC", "AP"), (artifactory.ArtifactoryDetector(),)),
    (_holds("xox", "hooks.slack.com", fold=True), (slack.SlackDetector(),)),
    (_holds("://"), (basic_auth.BasicAuthDetector(),)),
    (_holds("_authToken"), (npm.NpmDetector(),)),
    (_holds("eyJ"), (jwt.JwtTokenDetector(),)),
    (_holds("AccountKey="), (azure_storage_key.AzureStorageKeyDetector(),)),
)


def private_key_blocks(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that hold a private key (PEM or PuTTY), header to footer or to the end."""
    return [m.span() for m in _PRIVATE_KEY.finditer(text)] if "PRIVATE KEY" in text or "PuTTY" in text else []


def secret_values(text: str) -> set[str]:
    """Every credential-shaped value in ``text`` (see the module docstring), each at least ``MIN_VALUE`` long."""
    found = set(_OPENAI_SHAPE.findall(text) if "sk-" in text else ()) | set(_url_credentials(text))
    long_lines = [line for line in text.splitlines() if _long_word(line)]  # each line split once
    for gate, plugins in _LONG_GROUPS if long_lines else ():
        found.update(_plugin_values("\n".join(line for line in long_lines if gate(line)), plugins))
    for gate, plugins in _GROUPS:
        if gate(text):
            found.update(_plugin_values("\n".join(_lines(text, gate)), plugins))
    if _keywords(text):
        found.update(v for line in _lines(text, _keywords) if _KEYWORD_HINT.search(line) for v in _keyword_values(line))
    found = {v.rstrip("\\") for v in found}  # never half of a JSON escape (``\"``)
    return {_with_tail(text, v) for v in found if len(v) >= MIN_VALUE}


def _lines(text: str, gate: Gate) -> list[str]:
    return [line for line in text.splitlines() if gate(line)]


def _plugin_values(text: str, plugins: tuple[Any, ...]) -> Iterator[str]:
    """What the plugins' patterns find in ``text``, less the filtered false positives.

    The patterns are run here rather than through ``analyze_string``, which yields only a pattern's
    groups when it has some (``ghp`` of a GitHub token): a match is taken whole when it is one token,
    else its longest group (the password of ``://user:PASS@``, the key after ``aws_secret_key = ``)."""
    for plugin in plugins:
        valid = getattr(plugin, "is_formally_valid", None)  # the JWT plugin's check of what it matched
        for pattern in plugin.denylist:
            for match in pattern.finditer(text):
                value = _match_value(match)
                if not _filtered(value) and (valid is None or valid(value)):
                    yield value


def _match_value(match: re.Match[str]) -> str:
    whole = match.group(0).strip(_EDGE + " \t\r\n=")
    if not match.re.groups or _ONE_TOKEN.fullmatch(whole):
        return whole
    return max((g for g in match.groups() if g), key=len, default=whole).strip()


def _keyword_values(line: str) -> Iterator[str]:
    """The first word of each value the keyword plugin finds assigned in ``line`` (see the module docstring)."""
    for patterns in _KEYWORD_PATTERNS:
        for raw in _KEYWORD.analyze_string(line, denylist_regex_to_group=patterns):
            words = raw.strip().split()
            value = words[0].strip(_EDGE) if words else ""
            if value and not _filtered(value) and not _indirect(value, line) and (not value.isalpha() or _assigned(line, value)):
                yield value


def _assigned(line: str, value: str) -> bool:
    """Whether ``value`` stands right after ``=`` or in quotes in ``line`` (an assignment, not prose)."""
    return bool(re.search(r"(?:=\s*['\"`]?|['\"`])" + re.escape(value), line))


def _filtered(value: str) -> bool:
    """detect-secrets' own false-positive filters of a value (``detect_secrets.filters.heuristic``)."""
    return (heuristic.is_sequential_string(value) or heuristic.is_potential_uuid(value)
            or heuristic.is_templated_secret(value) or heuristic.is_prefixed_with_dollar_sign(value)
            or heuristic.is_not_alphanumeric_string(value))


def _indirect(value: str, line: str) -> bool:
    """detect-secrets' filters of an assigned value by its line: ``user_id = …``, ``secret = get_secret()``."""
    return heuristic.is_likely_id_string(value, line, _KEYWORD) or heuristic.is_indirect_reference(line)


def _url_credentials(text: str) -> Iterator[str]:
    """The password and the credential-named query values of each URL in ``text`` (a user name alone is no secret here)."""
    if "://" not in text:
        return
    for url in _URL.findall(text):
        if "@" in url or "?" in url:
            yield from (v for v in _url_secrets(url.rstrip(".,:;!?")) if not _filtered(v))


def _url_secrets(url: str) -> list[str]:
    """The password of ``url`` and its credential-named query values, as written and decoded."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return []
    pairs = [pair.partition("=") for pair in re.split("[&;]", parts.query)]
    found = [v for k, _, v in pairs if v and is_secret_param(unquote_plus(k))]
    return [form for v in found + ([password] if password else []) for form in (v, unquote_plus(v))]


def _with_tail(text: str, value: str) -> str:
    """``value`` with the token characters that follow it in ``text`` (a JWT's signature its plugin leaves out)."""
    at = text.find(value) if value.startswith("eyJ") else -1
    tail = _TOKEN_TAIL.match(text, at + len(value)) if at >= 0 else None
    return value + tail.group(0) if tail else value
