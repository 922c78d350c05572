"""docs/architecture.md names every module of ``horma/``, and only modules that exist.

A newcomer finds any module one hop from the data-flow picture: in its
module table (a path from ``horma/``, as ``agents/loop.py``, or from the
repository root, as ``horma/agents/loop.py``). A package's ``__init__.py`` is
named by its folder (``sandbox/``). The other way round, every ``*.py`` the
document names must be a file: a path from ``horma/`` or from the root, or
the bare name of exactly one module (``navigator.py`` in the picture).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "horma"
DOC = ROOT / "docs" / "architecture.md"
PY_PATH = re.compile(r"(?<![\w/.])([\w/]+\.py)\b")


def modules() -> list[str]:
    """Every module of the package as a path from ``horma/`` (data folders left out)."""
    return sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if "_data" not in p.parts)


def names(text: str, rel: str) -> bool:
    """Whether ``text`` names the module at ``rel`` (a package's ``__init__.py`` by its folder)."""
    forms = [rel]
    if rel.endswith("/__init__.py"):
        forms.append(rel.removesuffix("__init__.py"))
    return any(re.search(r"(?<![\w/.])(?:horma/)?" + re.escape(f) + r"(?![\w])", text) for f in forms)


def unresolved(text: str, mods: list[str]) -> list[str]:
    """The ``*.py`` paths ``text`` names that are no file."""
    out = []
    for ref in PY_PATH.findall(text):
        if (PACKAGE / ref).is_file() or (ROOT / ref).is_file():
            continue
        if "/" not in ref and sum(m.rsplit("/", 1)[-1] == ref for m in mods) == 1:
            continue
        out.append(ref)
    return sorted(set(out))


def test_the_checks_see_a_missing_and_a_stale_module() -> None:
    text = "| a | `agents/loop.py`, `horma/core/text.py`, `sandbox/` |  see navigator.py and gone/old.py"
    assert names(text, "agents/loop.py") and names(text, "core/text.py") and names(text, "sandbox/__init__.py")
    assert not names(text, "loop.py") and not names(text, "agents/manager.py") and not names(text, "text.py")
    assert unresolved(text, modules()) == ["gone/old.py"]


def test_architecture_names_every_module_and_only_real_ones() -> None:
    text = DOC.read_text(encoding="utf-8")
    mods = modules()
    assert len(mods) > 100
    assert [m for m in mods if not names(text, m)] == []
    assert len(PY_PATH.findall(text)) > 100
    assert unresolved(text, mods) == []
