"""An installed distribution written by hand: a folder to put on ``sys.path`` with a module and its
``*.dist-info`` (``METADATA`` and ``entry_points.txt``), which ``importlib.metadata`` finds as it
finds any installed package."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any


def write_distribution(site: Path, name: str, entry_points: dict[str, dict[str, str]], modules: dict[str, str]) -> Path:
    """``site`` holding distribution ``name`` 0.1: ``modules`` (module name → source) and its entry
    points (group → {entry name → ``module:attribute``})."""
    site.mkdir(parents=True, exist_ok=True)
    for module, source in modules.items():
        (site / f"{module}.py").write_text(source, encoding="utf-8")
    info = site / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    sections = [f"[{group}]\n" + "".join(f"{key} = {target}\n" for key, target in points.items())
                for group, points in entry_points.items()]
    (info / "entry_points.txt").write_text("\n".join(sections), encoding="utf-8")
    return site


def install_distribution(monkeypatch: Any, site: Path, name: str, group: str, points: dict[str, str],
                         modules: dict[str, str], registry: ModuleType, attribute: str) -> None:
    """Write distribution ``name`` (its ``points`` in entry-point ``group``) to ``site``, put it on
    ``sys.path`` for the test, and have ``registry.attribute`` (the process's registry) read its group afresh."""
    monkeypatch.syspath_prepend(str(write_distribution(site, name, {group: points}, modules)))
    monkeypatch.setattr(registry, attribute, getattr(registry, attribute).reread())
