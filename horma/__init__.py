"""horma: a working memory for long-horizon agents, kept as a sandboxed file tree.

A manager archives raw units and writes linked notes; a retriever navigates
the tree with bash and hands the primary agent a compact, provenance-carrying
context. See README.md for the architecture.

The public names load on first use: the sandbox helpers import ``horma.core``
(stdlib only) through this package, and must not pay for the rest.
"""

from __future__ import annotations

__version__ = "0.1.0"

_EXPORTS = {"Memory": "horma.memory", "Note": "horma.note", "Unit": "horma.workspace",
            "Workspace": "horma.workspace", "WorkspaceError": "horma.workspace_error"}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str) -> object:
    import importlib  # only on first use of a public name: the helpers never pay for it

    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'horma' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
