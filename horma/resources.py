"""Where the non-Python parts of the project live.

Prompts, skills and the sandbox helpers are top-level folders of the
repository so that a reader finds them without opening the package; an
editable install (the README's) resolves them from here.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROMPTS = ROOT / "prompts"
SKILLS = ROOT / "skills"
SANDBOX = ROOT / "sandbox"
SANDBOX_BIN = SANDBOX / "bin"
EXAMPLES = ROOT / "examples"
