"""No import circle among horma's modules: layers depend one way, so any one can be read and changed alone.

The graph is built from the source with ``ast``: every module-level import,
``if TYPE_CHECKING:`` blocks included (a type-only import is still a
dependency between two modules' designs). Imports inside a function are left
out: they are the deliberate lazy loads of optional extras and heavy
dependencies, taken when that function runs.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "horma"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        if "_data" in rel.parts:
            continue
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(parts)] = path
    return out


def _imported(name: str, path: Path) -> set[str]:
    """Every module name ``path`` imports at module level (``from a import b`` may name module ``a.b``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[: len(package.split(".")) - (child.level - 1)]
                    base = ".".join([*anchor, *([child.module] if child.module else [])])
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return found


def import_graph() -> dict[str, set[str]]:
    """horma module -> the horma modules it imports (the nearest module of each name it imports)."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for target in _imported(name, path):
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                edges.add(target)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return found


def test_the_cycle_finder_finds_a_circle_through_a_type_only_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    imported = _imported("horma.mcp_tools", PACKAGE / "mcp_tools.py")
    assert "horma.memory" in imported  # under TYPE_CHECKING, and counted


def test_no_import_circle_among_horma_modules() -> None:
    graph = import_graph()
    assert len(graph) > 100 and "horma.agents.manager" in graph["horma.memory"]
    assert cycles(graph) == []


MAX_MODULE_LINES = 400  # issue 20: a module a newcomer reads in one sitting; split by job past this


def oversized_modules(package: Path, limit: int = MAX_MODULE_LINES) -> dict[str, int]:
    """Every ``*.py`` under ``package`` longer than ``limit`` lines (as ``wc -l`` counts), by relative path."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        lines = path.read_bytes().count(b"\n")
        if lines > limit:
            out[path.relative_to(package).as_posix()] = lines
    return out


def test_the_size_check_finds_a_long_module(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "long.py").write_text("x = 1\n" * 401, encoding="utf-8")
    (tmp_path / "short.py").write_text("x = 1\n" * 400, encoding="utf-8")
    assert oversized_modules(tmp_path) == {"sub/long.py": 401}


def test_no_horma_module_is_over_400_lines() -> None:
    assert len(list(PACKAGE.rglob("*.py"))) > 100
    assert oversized_modules(PACKAGE) == {}
