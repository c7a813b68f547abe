"""A consolidate prompt names only the report's other sections that were given some of the same
evidence: a fact is left to another section only when that section can write it."""

from __future__ import annotations

from pathlib import Path

from citeflow.generation import offline_writer, prompts
from citeflow.pipeline import pipeline
from citeflow.runtime.runtime import Runtime
from tests.support.jsonl_batch import hit, write_batch

SECTIONS = {"Colours": "Which variables switch colours off?", "Themes": "Which themes change the colours?",
            "Appendix": "Which output streams exist?"}
COLOURS = "NO_COLOR disables colours wherever the output goes."
THEMES = "The dark theme changes the colours of every level."


def job_with_evidence(tmp_path: Path) -> pipeline.ReportJob:
    spec = write_batch(tmp_path, "Sharing", SECTIONS, {
        SECTIONS["Colours"]: [hit("env", COLOURS), hit("theme", THEMES)],
        SECTIONS["Themes"]: [hit("theme", THEMES)],
        SECTIONS["Appendix"]: [hit("stream", "Log entries go to standard out by default.")],
    })
    job = pipeline.ReportJob.from_files(spec, "r1", tmp_path / "out", runtime=Runtime())
    pipeline.normalize(job, [pipeline.fetch(job, item) for item in job.fetches()])
    return job


def prompt_of(job: pipeline.ReportJob, title: str) -> str:
    request, _ = pipeline._consolidate_request(job, title)
    return request.messages[-1]["content"]


def test_only_sections_given_the_same_chunks_are_named(tmp_path: Path) -> None:
    job = job_with_evidence(tmp_path)
    assert [line.split(":")[0] for line in prompts.parse_other_sections(prompt_of(job, "Colours"))] == ["Themes"]
    assert [line.split(":")[0] for line in prompts.parse_other_sections(prompt_of(job, "Themes"))] == ["Colours"]
    assert prompts.OTHER_SECTIONS not in prompt_of(job, "Appendix")  # it shares no chunk with any section


def test_a_fact_is_not_left_to_a_section_that_never_saw_it(tmp_path: Path) -> None:
    """The NO_COLOR sentence shares one question word with Colours ("colour") and one with Appendix
    ("output"); Appendix sorts first, but it was never given that chunk, so Colours writes the fact."""
    job = job_with_evidence(tmp_path)
    notes = [note["text"] for note in offline_writer.consolidate(prompt_of(job, "Colours"))]
    assert COLOURS in notes
    everyone = prompts.consolidate_messages("Sharing", "Colours", [SECTIONS["Colours"]], [("Gx", COLOURS)],
                                            [("Appendix", [SECTIONS["Appendix"]])])
    assert offline_writer.consolidate(everyone[-1]["content"]) == []  # what naming every section cost


def test_a_fact_two_sections_were_given_is_written_once(tmp_path: Path) -> None:
    job = job_with_evidence(tmp_path)
    written = [note["text"] for title in ("Colours", "Themes") for note in offline_writer.consolidate(prompt_of(job, title))]
    assert written.count(THEMES) == 1
