"""Comments point only at files that exist (issue 20).

Every repository path a comment or docstring names, in the code of
``horma/``, ``sandbox/``, ``bench/``, ``scripts/`` and ``tests/``, must be a
file or folder of the repository, as ``docs/architecture.md``,
``horma/core/text.py``, ``scripts/test.sh`` or ``README.md`` are. A path is a word that starts with one of the
repository's top-level folders and a slash, or is one of its top-level files;
paths with a placeholder (``<seg>``, ``*``, ``{name}``) are patterns, not
references, and are left alone.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ("horma", "sandbox", "bench", "scripts", "tests")
TOP_FOLDERS = ("horma", "sandbox", "bench", "scripts", "tests", "docs", "skills", "prompts", "examples", ".ci")
TOP_FILES = ("README.md", "DESIGN.md", "CHANGELOG.md", "Dockerfile", "pyproject.toml", "LICENSE",
             ".pre-commit-config.yaml")
PATH = re.compile(
    r"(?<![\w./<>*{}-])("
    r"(?:" + "|".join(re.escape(f) for f in TOP_FOLDERS) + r")/[\w./-]*[\w/]"
    r"|(?:" + "|".join(re.escape(f) for f in TOP_FILES) + r")"
    r")(?![\w<>*{}-]|/[\w<*{])"  # not a longer word, not followed by more path or a placeholder
)


def python_prose(source: str) -> list[tuple[int, str]]:
    """The comments and docstrings of a Python source, each with its first line number."""
    out: list[tuple[int, str]] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string))
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.append((body[0].lineno, body[0].value.value))
    return out


def shell_prose(source: str) -> list[tuple[int, str]]:
    """The ``#`` comments of a shell script (a whole-line comment or one after code and a space)."""
    out = []
    for n, line in enumerate(source.splitlines(), 1):
        stripped = line.lstrip()
        if stripped.startswith("#"):
            out.append((n, stripped))
        elif " # " in line:
            out.append((n, line.split(" # ", 1)[1]))
    return out


def prose(path: Path) -> list[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".py" or (text.startswith("#!") and "python" in text.splitlines()[0]):
        return python_prose(text)
    if path.suffix == ".sh" or text.startswith("#!"):
        return shell_prose(text)
    return []


def references(text: str) -> list[str]:
    """The repository paths ``text`` names (a sentence's closing dot is not part of one)."""
    return [m.group(1).rstrip(".") for m in PATH.finditer(text)]


def scanned_files() -> list[Path]:
    out = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and "_data" not in path.relative_to(ROOT).parts and "__pycache__" not in path.parts \
                    and (path.suffix in (".py", ".sh") or path.parent.name == "bin"):
                out.append(path)
    return out


def all_references() -> list[tuple[str, int, str]]:
    """(file, line, path named) for every reference in every scanned file's comments and docstrings."""
    out = []
    for path in scanned_files():
        for line, text in prose(path):
            for ref in references(text):
                out.append((path.relative_to(ROOT).as_posix(), line, ref))
    return out


def test_the_pattern_finds_paths_and_leaves_patterns_alone() -> None:
    text = ("see docs/architecture.md. and horma/core/index.py, scripts/test.sh or README.md; "
            "not raw/<seg>/units.log, skills/*.yaml, docs/{name}.md, myhorma/x.py or horma.core.text")
    assert references(text) == ["docs/architecture.md", "horma/core/index.py", "scripts/test.sh", "README.md"]
    assert references("(`horma/agents/`)") == ["horma/agents/"]
    comments = python_prose('"""Module: docs/a.md."""\nx = "horma/not_prose.py"  # horma/b.py\n'
                            'def f():\n    """tests/c.py"""\n')
    assert sorted(r for _, t in comments for r in references(t)) == ["docs/a.md", "horma/b.py", "tests/c.py"]
    assert [r for _, t in shell_prose('#!/bin/sh\n# see docs/d.md\necho "docs/e.md"  # bench/f.py\n')
            for r in references(t)] == ["docs/d.md", "bench/f.py"]


def test_every_path_a_comment_names_exists() -> None:
    refs = all_references()
    # the scanner must be finding the references this codebase is full of, or the check below proves nothing
    assert len(refs) > 60
    assert any(ref == "docs/architecture.md" for _, _, ref in refs)
    missing = [f"{file}:{line}: {ref}" for file, line, ref in refs if not (ROOT / ref).exists()]
    assert missing == []
