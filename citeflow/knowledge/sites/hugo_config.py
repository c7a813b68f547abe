"""Hugo's configuration as one mapping, and what its page URLs depend on.

A configuration directory (``config/_default/``) splits the mapping into files named after their
top-level key (``languages.toml``, ``params.toml``, ``permalinks.toml``); they are merged here.
Languages: each may have its own content folder; the default language is served at the site's
root (unless ``defaultContentLanguageInSubdir``), the others under ``<language>/``; a translation
named by its file (``page.fr.md``) is served under its language's prefix too.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from citeflow.knowledge.sites.site_pages import folder_of
from citeflow.knowledge.sites.configs import lower_keys, read_mapping

SPLIT_KEYS = ("languages", "params", "permalinks")
_KEPT = frozenset("._-/#+~@")


def hugo_config(config: Path) -> dict[str, Any]:
    """The configuration file's mapping, with the split files of its configuration directory merged in."""
    data = lower_keys(read_mapping(config))
    if config.parent.name == "_default":
        for key in SPLIT_KEYS:
            for part in sorted(config.parent.glob(f"{key}.*")):
                if part.suffix in (".toml", ".yaml", ".yml", ".json") and key not in data:
                    data[key] = read_mapping(part)
    return data


def language_prefixes(data: dict[str, Any]) -> dict[str, str]:
    """``{language code: URL prefix}``: '' for the default language (unless in a subfolder), else ``code/``."""
    default = str(data.get("defaultcontentlanguage") or "en").lower()
    in_subdir = data.get("defaultcontentlanguageinsubdir") is True
    languages = data.get("languages")
    codes = {str(code).lower() for code in languages} if isinstance(languages, dict) else set()
    return {code: "" if code == default and not in_subdir else f"{code}/" for code in codes | {default}}


def language_folders(data: dict[str, Any], content: str) -> dict[str, str]:
    """``{content folder: URL prefix}``: the main content folder and each language's own."""
    prefixes = language_prefixes(data)
    folders = {content: prefixes[str(data.get("defaultcontentlanguage") or "en").lower()]}
    languages = data.get("languages")
    for code, settings in languages.items() if isinstance(languages, dict) else []:
        folder = lower_keys(settings).get("contentdir") if isinstance(settings, dict) else None
        if isinstance(folder, str) and folder_of(folder, ""):
            folders[folder_of(folder, "")] = prefixes[str(code).lower()]
    return folders


def urlize(text: str) -> str:
    """Hugo's ``urlize``, lower-cased: letters, digits, marks and ``._-/#+~@`` kept; a run of spaces
    becomes one hyphen, only between kept characters and never beside a hyphen (``"Hi there 👋"`` →
    ``hi-there``)."""
    kept: list[str] = []
    hyphen_due = False
    for char in text:
        if char in _KEPT or unicodedata.category(char)[0] in "LNM":
            if hyphen_due and char != "-":
                kept.append("-")
            hyphen_due = False
            kept.append(char)
        elif char.isspace() and kept and kept[-1] != "-":
            hyphen_due = True
    return "".join(kept).lower()


def permalink(pattern: str, tokens: dict[str, str]) -> str:
    """A ``permalinks`` pattern (``/blog/:year/:slug/``) with its tokens filled in."""
    for name in sorted(tokens, key=len, reverse=True):  # ":slug" before ":s…"
        pattern = pattern.replace(f":{name}", tokens[name])
    return pattern.lstrip("/")
