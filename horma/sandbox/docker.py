"""The ``docker`` backend . Placeholder until the foundation work lands."""

from __future__ import annotations

from horma.sandbox import BackendStatus


def status() -> BackendStatus:
    return BackendStatus("docker", False, "not implemented yet")


def open(workspace, view, limits):  # noqa: A001
    raise NotImplementedError
