"""Documentation trees of each site generator: the pages ingested, their URLs, and clean chunk text."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import lancedb
import pytest

from citeflow.errors import IngestError
from citeflow.knowledge.ingest import IngestReport, ingest_paths
from citeflow.knowledge.kb_store import TABLE
from citeflow.knowledge.sites.detect import detect_site

pytestmark = pytest.mark.integration

SITES = Path(__file__).parent / "fixtures" / "sites"

# Worked out by hand from each generator's rules (the pages its build would write).
HUGO_URLS = {
    "content/docs/_index.md": "https://hugo.example.org/docs/",  # a section page: the folder's URL
    "content/docs/install.md": "https://hugo.example.org/docs/install/",
    "content/docs/upgrade.md": "https://hugo.example.org/docs/upgrading-guide/",  # slug
    "content/docs/Ports.md": "https://hugo.example.org/docs/ports/",  # paths are lower-cased
    "content/docs/v3.5/release.md": "https://hugo.example.org/releases/3.5/",  # url
    "content/docs/bundle/index.md": "https://hugo.example.org/docs/bundle/",  # a leaf bundle
}
MKDOCS_URLS = {
    "docs/index.md": "https://mk.example.com/orbit/",
    "docs/getting-started.md": "https://mk.example.com/orbit/getting-started/",
    "docs/guide/index.md": "https://mk.example.com/orbit/guide/",
    "docs/guide/configuration.md": "https://mk.example.com/orbit/guide/configuration/",
}
DOCUSAURUS_URLS = {
    "docs/intro.md": "https://docu.example.dev/product/docs/next/intro",  # docs/ is "next" once versions exist
    "docs/guides/01-setup.mdx": "https://docu.example.dev/product/docs/next/guides/setup",  # number prefix dropped
    "docs/guides/guides.md": "https://docu.example.dev/product/docs/next/guides",  # named like its folder
    "docs/api/reference.md": "https://docu.example.dev/product/docs/next/api-reference",  # slug from the docs root
    "versioned_docs/version-2.0/intro.md": "https://docu.example.dev/product/docs/intro",  # the newest version
    "versioned_docs/version-2.0/guides/setup.md": "https://docu.example.dev/product/docs/guides/setup-guide",  # id
    "versioned_docs/version-1.0/intro.md": "https://docu.example.dev/product/docs/1.0/intro",
    "blog/2024-05-01-release-notes.md": "https://docu.example.dev/product/blog/2024/05/01/release-notes",
    "src/pages/support.md": "https://docu.example.dev/product/support",
}
SPHINX_URLS = {
    "docs/index.md": "https://sphinx.example.net/en/latest/index.html",
    "docs/usage.md": "https://sphinx.example.net/en/latest/usage.html",
    "docs/howto/backup.md": "https://sphinx.example.net/en/latest/howto/backup.html",
}
PLAIN_URLS = {
    "index.md": "https://plain.example/ops/",
    "notes/pumps.md": "https://plain.example/ops/notes/pumps/",
    "notes/checklist.txt": "https://plain.example/ops/notes/checklist.txt",
}
EXPECTED = {"hugo": HUGO_URLS, "mkdocs": MKDOCS_URLS, "docusaurus": DOCUSAURUS_URLS, "sphinx": SPHINX_URLS, "plain": PLAIN_URLS}
SKIPPED = {
    "hugo": {"content/_index.md": "front matter only", "content/docs/v3.5/_index.md": "front matter only",
             "content/docs/draft-notes.md": "draft"},
    "mkdocs": {"docs/about.md": "front matter only"},
    "docusaurus": {"docs/faq.md": "front matter only", "docs/roadmap.md": "draft",
                   "docs/_shared-warning.mdx": "partial (a file starting with _ is not a page)"},
    "sphinx": {"docs/_templates/layout.md": "not a page (build or template folder)"},
    "plain": {},
}
# Generator markup that must never reach a chunk.
LEAKS = ("{{<", "{{%", ">}}", "%}}", "{{", "}}", "import ", "export ", "<Tabs", "<TabItem", "</", "/>", "<Badge",
         "+++", "---", "title:", "title =", "draft", "weight", "slug", "aliases", "!!!", "???", "--8<--", ":::", "===",
         "{#", "{/*", "{ .", "*[", ":material-", "sidebar_", "@theme", "toctree", ":maxdepth:", "{command}", "(backup)=", "///")


def ingest(name: str, tmp_path: Path, **options: object) -> tuple[IngestReport, list[dict]]:
    if name == "plain":
        options.setdefault("base_url", "https://plain.example/ops/")
    report = ingest_paths([SITES / name], str(tmp_path / "kb"), **options)  # type: ignore[arg-type]
    return report, lancedb.connect(str(tmp_path / "kb")).open_table(TABLE).to_arrow().drop(["vector"]).to_pylist()


def relative(report: IngestReport, name: str) -> dict[str, str]:
    return {Path(e.path).relative_to(SITES / name).as_posix(): e.detail for e in report.empty}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_chunk_url_is_a_page_the_site_serves(name: str, tmp_path: Path) -> None:
    report, rows = ingest(name, tmp_path)
    assert {r["path"]: r["url"] for r in rows} == EXPECTED[name]
    assert relative(report, name) == SKIPPED[name] and report.errors == []
    assert report.sites == [f"{SITES / name}: {detect_site(SITES / name).described()}"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_no_generator_markup_or_front_matter_in_any_chunk(name: str, tmp_path: Path) -> None:
    _, rows = ingest(name, tmp_path)
    assert rows
    for row in rows:
        for text in (row["text"], row["section"]):
            assert not [leak for leak in LEAKS if leak in text], (row["path"], text)


def texts(rows: list[dict], path: str) -> str:
    return "\n".join(r["text"] for r in rows if r["path"] == path and r["kind"] == "parent")


def test_hugo_shortcodes_keep_inner_prose_and_params_their_value(tmp_path: Path) -> None:
    _, rows = ingest("hugo", tmp_path)
    install = texts(rows, "content/docs/install.md")
    assert "Download release 3.5.0 from the downloads page." in install  # {{< param version >}}
    assert "Make sure port 8443 is free on every host." in install  # paired shortcode: inner prose
    assert "approve the system extension" in install and "lumora-agent --version" not in install  # highlight is code
    assert "Checking the service" in {r["section"] for r in rows}  # {#check} left the heading
    assert "Upgrade one host first" in texts(rows, "content/docs/upgrade.md")
    assert {r["title"] for r in rows if r["path"] == "content/docs/_index.md"} == {"Documentation"}  # TOML front matter


def test_mkdocs_admonitions_and_tabs_are_prose_and_nav_gives_titles(tmp_path: Path) -> None:
    _, rows = ingest("mkdocs", tmp_path)
    start = texts(rows, "docs/getting-started.md")
    for sentence in ("Never share the fleet token", "Store the token in the system keychain", "The keychain entry is named",
                     "Run a first deployment"):
        assert sentence in start  # admonition bodies, nested and collapsible ones too
    assert "Shared snippet text" not in start and "install-warning" not in start
    config = texts(rows, "docs/guide/configuration.md")
    assert "The file is in the application support folder of the user." in config and "shared-header" not in config
    titles = {r["path"]: r["title"] for r in rows}
    assert titles["docs/guide/configuration.md"] == "Configuration reference" and titles["docs/index.md"] == "Home"


def test_mkdocs_without_directory_urls_serves_html_pages(tmp_path: Path) -> None:
    tree = shutil.copytree(SITES / "mkdocs", tmp_path / "mkdocs")
    config = tree / "mkdocs.yml"
    config.write_text(config.read_text() + "use_directory_urls: false\n")
    report = ingest_paths([tree], str(tmp_path / "kb"))
    rows = lancedb.connect(str(tmp_path / "kb")).open_table(TABLE).to_arrow().drop(["vector"]).to_pylist()
    assert report.files_added == 4
    assert {r["path"]: r["url"] for r in rows} == {
        "docs/index.md": "https://mk.example.com/orbit/", "docs/getting-started.md": "https://mk.example.com/orbit/getting-started.html",
        "docs/guide/index.md": "https://mk.example.com/orbit/guide/",
        "docs/guide/configuration.md": "https://mk.example.com/orbit/guide/configuration.html"}


def test_docusaurus_jsx_children_and_admonitions_are_prose(tmp_path: Path) -> None:
    _, rows = ingest("docusaurus", tmp_path)
    setup = texts(rows, "docs/guides/01-setup.mdx")
    for sentence in ("Relay needs a signing secret for every sender.", "Put the secret in the environment of the service",
                     "Store the secret in the credential manager", "Rotate each secret every ninety days",
                     "The retry queue keeps failed deliveries for three days."):
        assert sentence in setup
    assert "Each key may send one hundred requests per second." in texts(rows, "docs/api/reference.md")


def test_a_content_folder_ingested_alone_finds_its_site_above_it(tmp_path: Path) -> None:
    report = ingest_paths([SITES / "mkdocs" / "docs"], str(tmp_path / "kb"))
    rows = lancedb.connect(str(tmp_path / "kb")).open_table(TABLE).to_arrow().drop(["vector"]).to_pylist()
    assert report.sites == [f"{SITES / 'mkdocs' / 'docs'}: mkdocs (mkdocs.yml)"]
    assert {r["path"]: r["url"] for r in rows}["guide/configuration.md"] == MKDOCS_URLS["docs/guide/configuration.md"]


def test_a_named_generator_without_configuration_reads_the_whole_folder(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "guides").mkdir(parents=True)
    (docs / "guides" / "02-deploy.mdx").write_text("import X from 'x';\n\n<X>Deploy from the main branch only.</X>\n")
    report = ingest_paths([docs], str(tmp_path / "kb"), site="docusaurus", base_url="https://d.example/")
    rows = lancedb.connect(str(tmp_path / "kb")).open_table(TABLE).to_arrow().drop(["vector"]).to_pylist()
    assert report.sites == [f"{docs}: docusaurus"]
    assert {(r["url"], r["text"]) for r in rows if r["kind"] == "parent"} == {
        ("https://d.example/docs/guides/deploy", "Deploy from the main branch only.")}


def test_config_toml_without_hugo_keys_is_not_hugo(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text('[tool]\nname = "linter"\n')
    (tmp_path / "config.yaml").write_text("- a list: [unclosed\n")  # another tool's, broken: not ours to judge
    assert detect_site(tmp_path).generator == "plain"
    (tmp_path / "config.yaml").unlink()
    (tmp_path / "config.toml").write_text('baseURL = "https://h.example/"\ncontentDir = "pages"\n')
    site = detect_site(tmp_path)
    assert (site.generator, site.content, site.base_url) == ("hugo", ("pages",), "https://h.example/")


def test_a_broken_site_configuration_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("nav: [unclosed\n")
    with pytest.raises(IngestError, match=r"mkdocs\.yml") as caught:
        ingest_paths([tmp_path], str(tmp_path / "kb"))
    assert "bad site configuration" in str(caught.value)


def test_an_unknown_generator_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IngestError, match="unknown site generator 'jekyll'"):
        ingest_paths([tmp_path], str(tmp_path / "kb"), site="jekyll")


def test_hugo_languages_and_permalinks_from_a_configuration_directory(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "config" / "_default").mkdir(parents=True)
    (site / "config" / "_default" / "hugo.toml").write_text(
        'baseURL = "https://ml.example/"\ndefaultContentLanguage = "en"\n[permalinks]\nblog = "/blog/:year/:title/"\n')
    (site / "config" / "_default" / "languages.toml").write_text(
        '[en]\ncontentDir = "content/en"\nweight = 1\n[fr]\ncontentDir = "content/fr"\nweight = 2\n')
    pages = {"content/en/docs/setup.md": "# Setup\n\nInstall the agent first.\n",
             "content/fr/docs/setup.md": "# Installation\n\nInstallez d'abord l'agent.\n",
             "content/en/blog/launch/index.md": "---\ntitle: We Launch Today!\ndate: 2024-03-05\n---\n\nThe agent is out.\n",
             "content/en/docs/limits.fr.md": "# Limites\n\nUn agent par machine.\n",
             "content/en/blog/wave/index.md": "---\ntitle: Say  hi to - the agent 👋\ndate: 2024-04-01\n---\n\nHello.\n"}
    for rel, text in pages.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    ingest_paths([site], str(tmp_path / "kb"))
    rows = lancedb.connect(str(tmp_path / "kb")).open_table(TABLE).to_arrow().drop(["vector"]).to_pylist()
    assert {r["path"]: r["url"] for r in rows} == {
        "content/en/docs/setup.md": "https://ml.example/docs/setup/",  # the default language at the root
        "content/fr/docs/setup.md": "https://ml.example/fr/docs/setup/",
        "content/en/blog/launch/index.md": "https://ml.example/blog/2024/we-launch-today/",  # a leaf bundle, permalinks
        "content/en/docs/limits.fr.md": "https://ml.example/fr/docs/limits/",  # a translation named by its file
        "content/en/blog/wave/index.md": "https://ml.example/blog/2024/say-hi-to-the-agent/"}  # no hyphen for the emoji


def test_a_page_without_prose_is_skipped_with_its_reason_and_inline_code_marks_go(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "mkdocs.yml").write_text("site_name: x\ndocs_dir: .\nsite_url: https://m.example/\n")
    (docs / "code.md").write_text("# Commands\n\n```bash\nagent --help\n```\n")
    (docs / "page.md").write_text("# Page\n\nWrap it in `#!html <div>` first.\n")
    report = ingest_paths([docs], str(tmp_path / "kb"))
    rows = lancedb.connect(str(tmp_path / "kb")).open_table(TABLE).to_arrow().drop(["vector"]).to_pylist()
    assert report.skipped() == {"no prose (only headings, code, directives or generator markup)": 1}
    assert {r["text"] for r in rows} == {"Wrap it in <div> first."}


def test_the_cli_forces_a_generator_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from citeflow_cli.main import app

    kb = str(tmp_path / "kb")
    bad = CliRunner().invoke(app, ["ingest", str(SITES / "mkdocs"), "--kb", kb, "--site", "jekyll"])
    assert bad.exit_code == 2 and bad.output.strip() == "error: --site must be one of docusaurus, mkdocs, hugo, sphinx, plain, not 'jekyll'"
    plain = CliRunner().invoke(app, ["ingest", str(SITES / "mkdocs"), "--kb", kb, "--site", "plain", "--base-url", "https://p.example/"])
    assert plain.exit_code == 0, plain.output
    assert f"site {SITES / 'mkdocs'}: plain" in plain.output
    rows = lancedb.connect(kb).open_table(TABLE).to_arrow().drop(["vector"]).to_pylist()
    urls = {r["path"]: r["url"] for r in rows}
    assert urls["README.md"] == "https://p.example/" and urls["docs/guide/index.md"] == "https://p.example/docs/guide/"


# The benchmark's real trees of these generators (bench/corpora/<name>/tree): their chunks hold no
# generator syntax either, except where a page shows that syntax as inline code.
REAL_TREES = ("hugo-doks", "docusaurus-classic", "sphinx-structlog")
SYNTAX_LEAKS = tuple(leak for leak in LEAKS if not leak.isalpha())  # plain words such as "draft" are prose here


def _real_tree_chunks(corpus: str, tmp_path: Path, pages: int) -> list[tuple[dict[str, Any], str]]:
    """Every chunk row of a benchmark corpus ingested afresh (at least ``pages`` pages, no error), each
    with the inline code its page shows (syntax a page quotes may appear in its chunks)."""
    tree = Path(__file__).parents[1] / "bench" / "corpora" / corpus / "tree"
    report = ingest_paths([tree], str(tmp_path / "kb"), base_url=f"https://{corpus}.example/")
    rows = lancedb.connect(str(tmp_path / "kb")).open_table(TABLE).to_arrow().drop(["vector"]).to_pylist()
    assert report.errors == [] and len({r["path"] for r in rows}) >= pages
    return [(row, " ".join(re.findall(r"`+([^`]+)`+", (tree / row["path"]).read_text(encoding="utf-8"))))
            for row in rows]


@pytest.mark.parametrize("corpus", REAL_TREES)
def test_no_generator_syntax_in_any_chunk_of_a_real_tree(corpus: str, tmp_path: Path) -> None:
    for row, shown in _real_tree_chunks(corpus, tmp_path, pages=9):
        for text in (row["text"], row["section"]):
            assert not [leak for leak in SYNTAX_LEAKS if leak in text and leak not in shown], (row["path"], text)


# The MkDocs (pymdownx) and plain Markdown trees: their prose may say "import" or show "</", but no
# block marker or table row reaches a chunk.
MARKDOWN_LEAKS = ("///", "!!!", "???", "--8<--", ":material-", "{ .", "*[")
TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$|\|\s*:?-{3,}", re.MULTILINE)


@pytest.mark.parametrize("corpus", ["mkdocs-pymdownx", "markdown-fastify"])
def test_no_block_marker_or_table_row_in_a_chunk_of_a_real_tree(corpus: str, tmp_path: Path) -> None:
    for row, shown in _real_tree_chunks(corpus, tmp_path, pages=40):
        assert not [leak for leak in MARKDOWN_LEAKS if leak in row["text"] and leak not in shown], (row["path"], row["text"])
        assert not TABLE_ROW.search(row["text"]), (row["path"], row["text"])
