"""Prompt templates: every prompt is a file in ``prompts/``, rendered with jinja2.

Keeping prompt text out of Python lets a reader see (and a user edit) exactly
what a model is told; ``StrictUndefined`` turns a missing variable into an
error instead of a silently empty prompt.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, TemplateError

from horma.config import ConfigError
from horma.resources import PROMPTS

_SUFFIXES = ("", ".md.j2", ".md", ".j2")


class PromptError(ConfigError):
    """A prompt template is missing or cannot be rendered; worded for the user."""


@lru_cache(maxsize=4)
def _env(folder: str) -> Environment:
    return Environment(
        loader=FileSystemLoader(folder),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def prompt_path(name: str, folder: Path = PROMPTS) -> Path:
    """The template file for ``name`` (``retriever`` finds ``retriever.md.j2``)."""
    for suffix in _SUFFIXES:
        path = folder / f"{name}{suffix}"
        if path.is_file():
            return path
    raise PromptError(f"no prompt template {name!r} in {folder}")


def render_prompt(name: str, /, **variables: Any) -> str:
    """Render the template ``name`` from ``prompts/``; any variable name is allowed, ``name`` too."""
    return render_prompt_from(PROMPTS, name, **variables)


def render_prompt_from(folder: Path, name: str, /, **variables: Any) -> str:
    """Render the template ``name`` from ``folder`` (tests, user prompt overrides)."""
    path = prompt_path(name, folder)
    try:
        return _env(str(folder)).get_template(path.name).render(**variables)
    except TemplateError as exc:
        raise PromptError(f"prompt {path.name}: {exc}") from exc
