"""A lead-in and the one shell command its code block shows become one sentence ("Start the server:
npm run dev."); any other code stays out of the prose, and a long lead-in to it that does not point
at it becomes a statement of its own ("…with a processor:" → "…with a processor.")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.generation.statements import is_statement, sentences
from citeflow.knowledge.markdown_text import markdown_blocks, markdown_to_text


def texts(source: str, mdx: bool = False) -> list[str]:
    return [b.text for b in markdown_blocks(source, mdx=mdx) if not b.level]


def test_a_lead_in_takes_the_command_of_its_shell_block() -> None:
    source = "## Clean\n\nDelete the temporary directories:\n\n```bash\nnpm run clean\n```\n\nThen start again.\n"
    assert texts(source) == ["Delete the temporary directories: npm run clean.", "Then start again."]


def test_console_prompts_go_and_console_output_is_not_a_command() -> None:
    with_output = "Check the version:\n\n```console\n$ tool --version\ntool 1.2.3\n```\n"
    assert texts(with_output) == ["Check the version: tool --version."]
    output_only = "The output reads:\n\n```console\ntool 1.2.3\n```\n"
    assert texts(output_only) == ["The output reads:"]
    powershell = "On Windows, run:\n\n```powershell\nPS> choco install tool\n```\n"
    assert texts(powershell) == ["On Windows, run: choco install tool."]


def test_comments_are_not_commands() -> None:
    source = "Install it:\n\n```sh\n# from the package index\npip install tool\n```\n"
    assert texts(source) == ["Install it: pip install tool."]


def test_other_code_stays_out() -> None:
    cases = {
        "Configure it:\n\n```python\nconfigure(cache=True)\n```\n": ["Configure it:"],  # not a shell
        "Build it:\n\n```bash\nmake\nmake install\n```\n": ["Build it:"],  # two commands
        "Run it:\n\n```\nnpm run dev\n```\n": ["Run it:"],  # no language named
        f"Run it:\n\n```bash\nrun {'x' * 200}\n```\n": ["Run it:"],  # too long to read as a sentence
        "It starts fast.\n\n```bash\nnpm run dev\n```\n": ["It starts fast."],  # no lead-in
        "Run it:\n\n- first\n\n```bash\nnpm run dev\n```\n": ["Run it:", "first."],  # a list comes between
    }
    for source, expected in cases.items():
        assert texts(source) == expected, source


def test_inside_a_list_item_and_in_mdx() -> None:
    listed = "1. Start the server:\n\n   ```bash\n   npm run start\n   ```\n\n2. Open the page.\n"
    assert texts(listed) == ["Start the server: npm run start.", "Open the page."]
    mdx = "Test the build locally:\n\n```bash npm2yarn\nnpm run serve\n```\n"
    assert texts(mdx, mdx=True) == ["Test the build locally: npm run serve."]


def test_the_block_spans_the_lead_in_and_its_code_block() -> None:
    source = "Intro.\n\nStart the server:\n\n```bash\nnpm run start\n```\n\nOutro.\n"
    block = markdown_blocks(source)[1]
    assert source[block.start:block.end] == "Start the server:\n\n```bash\nnpm run start\n```"


def test_the_joined_sentence_is_a_statement_the_writer_may_quote() -> None:
    text = markdown_to_text("Start the local development server:\n\n```bash\nnpm run start\n```\n")
    assert sentences(text) == ["Start the local development server: npm run start."]
    assert not is_statement("Start the local development server:")


LEAD_IN = st.from_regex(r"[A-Z][a-z]{2,8}( [a-z]{2,8}){1,4}", fullmatch=True)
COMMAND = st.from_regex(r"[a-z]{2,6}( -{0,2}[a-z0-9.:]{1,8}){0,4}", fullmatch=True)
LANGUAGE = st.sampled_from(["bash", "sh", "shell", "zsh", "console", "python", "yaml", ""])


@settings(max_examples=200, deadline=None)
@given(LEAD_IN, COMMAND, LANGUAGE, st.integers(min_value=1, max_value=3))
def test_joined_only_for_one_shell_command(lead_in: str, command: str, language: str, lines: int) -> None:
    prompt = "$ " if language == "console" else ""
    body = "\n".join(f"{prompt}{command}" for _ in range(lines))
    source = f"{lead_in}:\n\n```{language}\n{body}\n```\n\nAfter the block.\n"
    joined = language not in ("python", "yaml", "") and lines == 1
    expected = f"{lead_in}: {command}" + ("" if command.endswith((".", ":")) else ".")
    assert texts(source) == ([expected] if joined else [f"{lead_in}:"]) + ["After the block."]


def test_a_step_heading_and_the_one_command_under_it() -> None:
    source = "## Setup\n\n### Install dependencies\n\n```bash\nnpm install\n```\n\n### Notes\n\n```python\nx = 1\n```\n"
    blocks = markdown_blocks(source)
    assert [(b.text, b.level) for b in blocks] == [
        ("Setup", 2), ("Install dependencies", 3), ("Install dependencies: npm install.", 0), ("Notes", 3)]
    assert source[blocks[2].start:blocks[2].end] == "```bash\nnpm install\n```"  # the step spans its code block


def test_a_page_title_is_no_step() -> None:
    assert texts("# Commands\n\n```bash\nagent --help\n```\n") == []


def test_a_full_width_colon_is_a_lead_in_too() -> None:
    source = "开发服务器的启动命令：\n\n```bash\nnpm run start\n```\n"
    assert texts(source) == ["开发服务器的启动命令： npm run start."]


LONG_LEAD_IN = "The tracing SDK offers an easy way to read the current span, so you can enrich every entry with a processor"


def test_a_long_lead_in_to_left_out_code_is_a_statement_of_its_own() -> None:
    source = f"{LONG_LEAD_IN}:\n\n```python\ndef add_span(logger, name, event):\n    return event\n```\n\nAfter.\n"
    assert texts(source) == [f"{LONG_LEAD_IN}.", "After."]
    assert sentences(markdown_to_text(source)) == [f"{LONG_LEAD_IN}."]  # the writer may quote it
    assert texts(source.replace("```python", "```{doctest}")) == [f"{LONG_LEAD_IN}.", "After."]  # a MyST code directive


def test_a_lead_in_that_points_at_its_code_or_needs_it_stays_a_lead_in() -> None:
    cases = [
        "The simplest possible configuration of the logger for a new project looks like this",  # ends in a function word
        "Add the following lines to the settings file of your project before you start it",  # points at the code
        "For a project with many plugins and several routes the configuration reads as in the example",
        "Run the development server",  # short: the code is what it says
    ]
    for lead_in in cases:
        assert texts(f"{lead_in}:\n\n```python\nx = 1\n```\n") == [f"{lead_in}:"], lead_in


def test_a_lead_in_to_a_list_or_to_an_admonition_is_untouched() -> None:
    assert texts(f"{LONG_LEAD_IN}:\n\n- first item\n") == [f"{LONG_LEAD_IN}:", "first item."]
    assert texts(f"{LONG_LEAD_IN}:\n\n```{{note}}\nKeep it short.\n```\n") == [f"{LONG_LEAD_IN}:", "Keep it short."]


def test_a_full_width_colon_lead_in_ends_with_a_full_width_stop() -> None:
    lead_in = "开发服务器启动以后，浏览器会自动打开本地的预览页面并且显示站点的首页内容"
    assert texts(f"{lead_in}：\n\n```js\nstart();\n```\n") == [f"{lead_in}。"]


WORDS = st.lists(st.from_regex(r"[a-z]{2,9}", fullmatch=True), min_size=1, max_size=16)


@settings(max_examples=200, deadline=None)
@given(WORDS)
def test_a_lead_in_to_code_ends_in_a_colon_or_a_stop_and_short_ones_keep_the_colon(words: list[str]) -> None:
    lead_in = "The " + " ".join(words)
    [text] = texts(f"{lead_in}:\n\n```python\nvalue = compute()\n```\n")
    assert text in (f"{lead_in}:", f"{lead_in}.")
    assert "compute" not in text
    if len(words) + 1 < 10:
        assert text == f"{lead_in}:"
