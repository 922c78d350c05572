"""The ``bwrap`` backend (bubblewrap). Placeholder until the foundation work lands."""

from __future__ import annotations

from horma.sandbox import BackendStatus


def status() -> BackendStatus:
    return BackendStatus("bwrap", False, "not implemented yet")


def open(workspace, view, limits):  # noqa: A001
    raise NotImplementedError
