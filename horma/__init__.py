"""horma: a working memory for long-horizon agents, kept as a sandboxed file tree.

A manager archives raw units and writes linked notes; a retriever navigates
the tree with bash and hands the primary agent a compact, provenance-carrying
context. See README.md for the architecture.
"""

from horma.workspace import Note, Unit, Workspace, WorkspaceError
from horma.memory import Memory

__version__ = "0.1.0"

__all__ = ["Memory", "Note", "Unit", "Workspace", "WorkspaceError", "__version__"]
