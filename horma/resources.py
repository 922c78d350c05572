"""Where the non-Python parts of the project live.

Prompts, skills, the sandbox helpers and the examples are top-level folders
of the repository, so a reader finds them without opening the package.
``horma/_data/`` links to them, which makes a wheel carry copies; resolving
the links gives the repository folders in an editable install and the copies
in a wheel install.
"""

from __future__ import annotations

from pathlib import Path

_DATA = Path(__file__).resolve().parent / "_data"
PROMPTS = (_DATA / "prompts").resolve()
SKILLS = (_DATA / "skills").resolve()
SANDBOX = (_DATA / "sandbox").resolve()
SANDBOX_BIN = SANDBOX / "bin"
EXAMPLES = (_DATA / "examples").resolve()
CORE = Path(__file__).resolve().parent / "core"  # stdlib-only: mounted into every sandbox for the helpers
