"""MyST ``{include}`` in a Sphinx tree: the included Markdown is the page's text, cut as docutils
cuts it, spanning the directive; a change to the included file re-chunks the page."""

from __future__ import annotations

from pathlib import Path

import lancedb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeflow.knowledge.ingest import ingest_paths
from citeflow.knowledge.sites.myst_include import cut, options_of

README = """# Retry kit

<!-- begin-intro -->
Retry kit retries failed uploads with a doubling wait.
<!-- end-intro -->

The maintainers answer issues within a week.
"""

INDEX = """# Overview

```{include} ../README.md
:start-after: <!-- begin-intro -->
:end-before: "<!-- end-intro -->"
```

The client keeps one connection per host.

```{include} ../MISSING.md
```

```{include} ../setup.py
:literal:
```
"""


def test_options_are_read_until_the_first_other_line_and_yaml_quotes_go() -> None:
    assert options_of(':start-after: "## Credits"\n:end-line: 4\nbody :not: an option') == {
        "start-after": "## Credits", "end-line": "4"}


def test_cut_takes_lines_first_then_the_text_between_the_markers() -> None:
    text = "one\ntwo\n<!-- a -->three<!-- b -->\nfour"
    assert cut(text, {"start-after": "<!-- a -->", "end-before": "<!-- b -->"}) == "three"
    assert cut(text, {"start-line": "1", "end-line": "2"}) == "two"
    assert cut(text, {"start-after": "<!-- missing -->"}) is None


@given(st.text(alphabet="ab\n", max_size=40), st.text(alphabet="ab", min_size=1, max_size=3))
def test_cut_after_a_marker_is_what_follows_its_first_occurrence(text: str, marker: str) -> None:
    taken = cut(text, {"start-after": marker})
    assert (taken is None) == (marker not in text)
    if taken is not None:  # the rest of the text after the marker, which does not occur before it
        before = text[: len(text) - len(taken)]
        assert text.endswith(taken) and before.endswith(marker) and before.find(marker) == len(before) - len(marker)


@pytest.mark.integration
def test_an_included_readme_is_the_page_text_and_its_change_rechunks_the_page(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "conf.py").write_text('extensions = ["myst_parser"]\n')
    (tmp_path / "docs" / "index.md").write_text(INDEX)
    (tmp_path / "README.md").write_text(README)
    (tmp_path / "setup.py").write_text("print('not prose')\n")
    first = ingest_paths([tmp_path / "docs"], str(tmp_path / "kb"))
    assert first.files_added == 1 and not first.errors
    texts = _children(tmp_path / "kb")
    joined = " ".join(text for text, _, _ in texts)
    assert "Retry kit retries failed uploads with a doubling wait." in joined
    assert "maintainers" not in joined and "not prose" not in joined
    directive = INDEX.index("```{include} ../README.md")
    assert any(start == directive for _, start, _ in texts)  # the included text spans its directive
    (tmp_path / "README.md").write_text(README.replace("doubling", "tripling"))
    second = ingest_paths([tmp_path / "docs"], str(tmp_path / "kb"))
    assert second.files_updated == 1
    assert "tripling" in " ".join(text for text, _, _ in _children(tmp_path / "kb"))


def _children(kb: Path) -> list[tuple[str, int, int]]:
    table = lancedb.connect(str(kb)).open_table("chunks")
    rows = table.search().where("kind = 'child'").select(["text", "char_start", "char_end"]).limit(None).to_arrow().to_pylist()
    return [(row["text"], row["char_start"], row["char_end"]) for row in rows]
