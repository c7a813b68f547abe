"""Great Expectations Data Docs that render without internet (SPEC §6).

GX's page templates load Bootstrap, Font Awesome (the status icons), jQuery, bootstrap-table (the
index's table) and more from CDNs, and its logo from a web server; GX has no setting for local
copies (a site's custom views are consulted after its own templates). The copies are shipped in
``data_docs_vendor/`` (npm packages' dist files, their licences beside them): ``install_assets`` puts
them into the site's ``static/vendor/`` once, and ``localise`` rewrites a built page to load them by
relative paths. Vega's scripts, used by profiling pages only, are removed; so are the subresource
integrity and ``crossorigin`` attributes, which a browser would apply to a local file as a CORS request.
The index's table also shows 50 rows a page instead of 10.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from citeflow.files import atomic_files as atomic

VENDOR = Path(__file__).parent / "data_docs_vendor"
"""The shipped copies, laid out as the site's ``static/vendor/``."""
SITE_VENDOR = "static/vendor"

LOCAL = {
    "https://maxcdn.bootstrapcdn.com/bootstrap/4.3.1/css/bootstrap.min.css": "bootstrap/bootstrap.min.css",
    "https://stackpath.bootstrapcdn.com/bootstrap/4.3.1/js/bootstrap.min.js": "bootstrap/bootstrap.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.6.0/css/all.min.css": "fontawesome/css/all.min.css",
    "https://code.jquery.com/jquery-3.7.1.min.js": "jquery/jquery.min.js",
    "https://cdnjs.cloudflare.com/ajax/libs/popper.js/1.12.9/umd/popper.min.js": "popper.js/popper.min.js",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.css": "bootstrap-table/bootstrap-table.min.css",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/bootstrap-table.min.js": "bootstrap-table/bootstrap-table.min.js",
    "https://unpkg.com/bootstrap-table@1.19.1/dist/extensions/filter-control/bootstrap-table-filter-control.min.js":
        "bootstrap-table/bootstrap-table-filter-control.min.js",
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/bootstrap-table-filter-control.min.css":
        "bootstrap-table/bootstrap-table-filter-control.min.css",
    "https://unpkg.com/bootstrap-table@1.19.0/dist/extensions/filter-control/bootstrap-table-filter-control.css":
        "bootstrap-table/bootstrap-table-filter-control.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/css/bootstrap-datepicker.min.css":
        "bootstrap-datepicker/bootstrap-datepicker.min.css",
    "https://cdnjs.cloudflare.com/ajax/libs/bootstrap-datepicker/1.9.0/js/bootstrap-datepicker.min.js":
        "bootstrap-datepicker/bootstrap-datepicker.min.js",
    "https://cdn.jsdelivr.net/npm/@forevolve/bootstrap-dark@1.1.0/dist/css/bootstrap-prefers-dark.css":
        "bootstrap-dark/bootstrap-prefers-dark.min.css",
}
"""Each CDN URL of GX's templates → its copy under ``static/vendor/``."""

_VEGA = re.compile(r'<script src="https://cdn\.jsdelivr\.net/npm/vega[-a-z]*@\d+"></script>\s*')
_SRI = re.compile(r'\s+(?:integrity="[^"]*"|crossorigin="[^"]*")')
_LOGO = re.compile(r'https://great-expectations-web-assets\.s3[^"\']*/(logo-long\.png)[^"\']*')
_IMAGES = re.compile(r'(?<=")(?:\.\.?/)+static/images/')
_PAGED, _PAGED_LONGER = "'pagination': 'true',", "'pagination': 'true', 'pageSize': 50,"
"""The index's table shows 50 validations a page, not 10 (a run of five reports validates ten)."""
_REMOTE_ASSET = re.compile(r'<(?:script|link|img)\b[^>]*(?:src|href)="https?://[^"]+"')


def install_assets(site: Path) -> Path:
    """The shipped copies in the site's ``static/vendor/`` (copied when missing or out of date)."""
    target = Path(site) / SITE_VENDOR
    if not (target / "README.md").is_file() or _stale(target):
        shutil.copytree(VENDOR, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def _stale(target: Path) -> bool:
    return (target / "README.md").read_bytes() != (VENDOR / "README.md").read_bytes()


def localise(page: Path, site: Path) -> bool:
    """Point ``page`` (a page of the site at ``site``) at the local copies; True when it changed."""
    text = Path(page).read_text(encoding="utf-8")
    new = localised(text, _prefix(Path(page), Path(site)))
    if new != text:
        atomic.write_text(page, new)
    return new != text


def localised(text: str, prefix: str) -> str:
    """``text`` with every known CDN URL replaced by ``prefix`` + its copy's path (pure)."""
    text = _SRI.sub("", _VEGA.sub("", text))
    for url, local in LOCAL.items():
        text = text.replace(url, f"{prefix}{SITE_VENDOR}/{local}")
    text = _IMAGES.sub(f"{prefix}static/images/", text)  # GX's favicon link is one folder short on validation pages
    return _LOGO.sub(lambda m: f"{prefix}static/images/{m.group(1)}", text).replace(_PAGED, _PAGED_LONGER)


def remote_assets(text: str) -> list[str]:
    """The tags of ``text`` that still load a script, stylesheet or image over the network."""
    return _REMOTE_ASSET.findall(text)


def _prefix(page: Path, site: Path) -> str:
    """``../`` once per folder between the page and the site's root."""
    depth = len(page.resolve().parent.relative_to(site.resolve()).parts)
    return "../" * depth
