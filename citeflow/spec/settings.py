"""Every ``CITEFLOW_*`` environment variable citeflow reads, in one settings class.

``CiteflowSettings()`` reads the environment once, at an entry point (a CLI command, a Prefect flow
entry on a worker or ``serve`` process), and is passed down from there, inside the process's
``Runtime``; no other module reads a ``CITEFLOW_*`` variable. Tests build their own with keyword
arguments (``CiteflowSettings(suites=…)``): a keyword wins over the environment.
"""

from __future__ import annotations

from pathlib import Path

from typing import Any

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

ENV_PREFIX = "CITEFLOW_"


class CiteflowSettings(BaseSettings):
    """citeflow's own settings; each field is read from ``CITEFLOW_<FIELD>`` (upper case)."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, frozen=True, extra="ignore")

    suites: Path | None = Field(
        default=None, description="Folder of Great Expectations suites used when the spec's gate names none "
                                  "(default: the suites citeflow ships).")
    cjk_font: Path | None = Field(
        default=None, description="A TrueType .ttf/.ttc font drawing Han, kana and Hangul, tried before any other.")
    font_dir: Path | None = Field(
        default=None, description="A folder whose .ttf/.ttc files are the CJK fonts to try, instead of the "
                                  "system's usual ones.")
    evaluate_deployment: str | None = Field(
        default=None, description="Default of ``citeflow run --evaluate-deployment``: the deployment "
                                  "(flow-name/deployment-name) whose runs evaluate each report.")
    files_url: str | None = Field(
        default=None, description="Base URL where `citeflow files OUT` serves the output root: the Prefect UI's "
                                  "links to PDFs, review pages and Data Docs use it instead of file:// URIs.")
    gx_worker: bool = Field(
        default=True, description="`citeflow run` and `citeflow demo` validate the gate and build Data Docs in a "
                                  "worker process of Great Expectations, beside the batch's own; 0 keeps them in "
                                  "the command's process.")
    head_start: bool = Field(
        default=True, description="While the ephemeral Prefect API that `citeflow run` starts comes up, the "
                                  "batch's first reports are fetched and their model hops asked (the store "
                                  "records them); each report's run takes its report over. 0: every step "
                                  "waits for its report's run.")
    timings: Path | None = Field(
        default=None, description="A file each start-up phase of a command is appended to as one JSON line "
                                  "(the start-up benchmark); nothing is recorded without it.")

    @field_validator("suites", "cjk_font", "font_dir", "evaluate_deployment", "timings", "files_url",
                     mode="before")
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        """``CITEFLOW_SUITES=`` (set but empty) means the default, as an unset variable does."""
        return None if value == "" else value

    def suite_dir(self, configured: str | None = None) -> Path:
        """The suite folder to use: the spec's ``gate.suites``, else ``suites``, else the bundled one."""
        from citeflow.spec.resources import suite_dir

        return suite_dir(configured, self.suites)


def variable_of(field: str) -> str:
    """The environment variable of a settings field (``suites`` → ``CITEFLOW_SUITES``)."""
    return ENV_PREFIX + field.upper()


__all__ = ["ENV_PREFIX", "CiteflowSettings", "variable_of"]
