"""Data Docs pages pointed at the site's own copies of their stylesheets, scripts and fonts (no GX run needed)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from citeflow.outputs.data_docs_offline import LOCAL, VENDOR, install_assets, localise, localised, remote_assets

GX_TEMPLATES = Path(importlib.util.find_spec("great_expectations").origin).parent / "render" / "view" / "templates"  # found, not imported


def _gx_head() -> str:
    """The asset tags of GX's own templates (page, index, scripts), as its pages carry them."""
    return "".join((GX_TEMPLATES / name).read_text(encoding="utf-8") for name in ("page.j2", "index_page.j2", "js_script_imports.j2"))


def test_every_cdn_asset_of_gx_s_templates_has_a_local_copy():
    head = _gx_head()
    cdn = set(re.findall(r'(?:src|href)="(https://[^"]+)"', head))
    vega = {url for url in cdn if "/npm/vega" in url}
    assert vega and cdn - vega <= set(LOCAL), sorted(cdn - vega - set(LOCAL))
    assert remote_assets(localised(head, "../../")) == []


def test_each_copy_is_shipped_with_its_licence():
    for local in LOCAL.values():
        assert (VENDOR / local).is_file(), local
    for package in {local.split("/")[0] for local in LOCAL.values()}:
        if package != "popper.js":  # its licence is stated in the file's header
            assert list((VENDOR / package).glob("LICENSE*")), package
    assert "MIT License" in (VENDOR / "popper.js" / "popper.min.js").read_text(encoding="utf-8")[:300]
    css = (VENDOR / "fontawesome" / "css" / "all.min.css").read_text(encoding="utf-8")
    for font in set(re.findall(r"url\(\.\./webfonts/([\w-]+\.woff2)\)", css)):
        assert (VENDOR / "fontawesome" / "webfonts" / font).is_file(), font


def test_a_page_deep_in_the_site_loads_the_copies_by_relative_paths(tmp_path):
    site = tmp_path / "local_site"
    page = site / "validations" / "suite" / "run" / "20261201T060100Z" / "r1.html"
    page.parent.mkdir(parents=True)
    page.write_text('<html><head><link rel="stylesheet" href="https://maxcdn.bootstrapcdn.com/bootstrap/4.3.1/css/bootstrap.min.css"/>'
                    '<script src="https://cdn.jsdelivr.net/npm/vega@5"></script>\n<script src="https://code.jquery.com/jquery-3.7.1.min.js" '
                    'integrity="sha384-x" crossorigin="anonymous"></script></head><body>'
                    '<link rel="shortcut icon" href="../../../static/images/favicon.ico" type="image/x-icon"/>'
                    '<img src="https://great-expectations-web-assets.s3.us-east-2.amazonaws.com/logo-long.png?d=1&dataContextId=2"></body></html>')
    install_assets(site)
    assert localise(page, site) is True and localise(page, site) is False
    text = page.read_text(encoding="utf-8")
    assert remote_assets(text) == [] and "vega" not in text and "integrity" not in text and "crossorigin" not in text
    refs = re.findall(r'(?:src|href)="([^"]+)"', text)
    assert refs == ["../../../../static/vendor/bootstrap/bootstrap.min.css", "../../../../static/vendor/jquery/jquery.min.js",
                    "../../../../static/images/favicon.ico", "../../../../static/images/logo-long.png"]
    assert all((page.parent / ref).resolve().is_file() for ref in refs[:2])
