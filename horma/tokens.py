"""The project's one token count.

A token is a ``\\w+`` run or one punctuation character: the unit the LoCoMo
reference figures use, cheap, deterministic and provider-independent, so a
budget means the same thing for every method and every backend.
"""

from __future__ import annotations

import re

TOKEN_RE = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    """Tokens in ``text`` under the project's definition."""
    return len(TOKEN_RE.findall(text))
