"""CLI commands (not written yet)."""

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""
