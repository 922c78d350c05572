"""A refinement round's proposed skills: read out of the model's reply, then validated, de-duplicated and numbered.

Apart from the loop (:mod:`horma.refine`) because this is where a model's
free text meets the skill library's rules; the tests drive it directly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from horma.llm import LLMError
from horma.skills import KIND_PREFIX, Skill, find_duplicate, next_id


class ProposalError(LLMError, ValueError):
    """The augmentation reply is not the JSON asked for (the model's doing, hence a provider error)."""


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def parse_proposals(text: str) -> list[Any]:
    """The list of proposed skills in a reply: ``{"skills": [...]}`` or a bare list, fences allowed."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if starts:
        s = min(starts)
        e = max(text.rfind("}"), text.rfind("]"))
        if e > s:
            candidates.append(text[s : e + 1])
    error = "no JSON found"
    for c in candidates:
        try:
            data = json.loads(c.strip())
        except json.JSONDecodeError as exc:
            error = f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
            continue
        if isinstance(data, dict) and isinstance(data.get("skills"), list):
            return data["skills"]
        if isinstance(data, list):
            return data
        error = 'JSON is not {"skills": [...]}'
    raise ProposalError(error)


@dataclass
class Review:
    """What became of a round's proposals."""

    accepted: list[Skill] = field(default_factory=list)
    duplicates: list[dict[str, str]] = field(default_factory=list)
    invalid: list[dict[str, str]] = field(default_factory=list)


def review_proposals(proposals: Sequence[Any], library: Sequence[Skill], round_: int,
                     task_ids: dict[str, list[str]]) -> Review:
    """Validate, de-duplicate and number proposed skills.

    ``task_ids`` maps a kind to the tasks behind this round's feedback of that
    kind; a proposal's ``sources`` are kept only where they name those tasks
    (and default to all of them), so a skill always points at real evidence.
    """
    review = Review()
    for i, p in enumerate(proposals, 1):
        if not isinstance(p, dict):
            review.invalid.append({"proposal": str(i), "reason": f"not an object: {p!r}"[:200]})
            continue
        kind = p.get("kind")
        if kind not in KIND_PREFIX:
            review.invalid.append({"proposal": str(i), "reason": f"kind must be exogenous or endogenous, got {kind!r}"})
            continue
        title, principle = str(p.get("title", "")), str(p.get("principle", ""))
        dup = find_duplicate(title, principle, [*library, *review.accepted])
        if dup is not None:
            review.duplicates.append({"title": title, "duplicate_of": dup.id})
            continue
        allowed = task_ids.get(kind, [])
        given = p.get("sources")
        raw_sources = given if isinstance(given, list) else []
        sources = [str(s) for s in raw_sources if str(s) in allowed] or list(allowed)
        entry = {k: v for k, v in p.items() if k in {"title", "principle", "when", "example", "heuristic"}}
        try:
            skill = Skill.model_validate({
                **entry, "id": next_id(kind, [*library, *review.accepted]), "kind": kind,
                "round": round_, "sources": sources,
            })
        except ValidationError as exc:
            err = exc.errors()[0]
            field_ = ".".join(str(x) for x in err["loc"]) or "entry"
            review.invalid.append({"proposal": str(i), "title": title,
                                   "reason": f"{field_}: {err['msg'].removeprefix('Value error, ')}"})
            continue
        review.accepted.append(skill)
    return review
