"""LLM-as-judge: is a generated answer the gold answer, as a careful grader would say?

Token F1 punishes correct answers phrased differently ("7 May" vs "May 7th");
the paper therefore reports an LLM judge (Claude Sonnet 4.5) beside F1. The
prompt is ``prompts/judge.md.j2``; it asks for a JSON verdict, and the parser
accepts what models actually send back: fenced JSON, loose JSON, or a bare
CORRECT / WRONG word.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from horma.prompts import render_prompt

_TRUE = {"correct", "true", "yes", "right", "1"}
_FALSE = {"wrong", "incorrect", "false", "no", "0"}
_OBJECT = re.compile(r"\{[^{}]*\}", re.S)
_LABEL_FIELD = re.compile(r"""["']?(?:label|verdict|grade|judgement|judgment|correct)["']?\s*[:=]\s*["']?(\w+)""", re.I)
_WORD = re.compile(r"\b(CORRECT|INCORRECT|WRONG)\b", re.I)


@dataclass(frozen=True)
class Verdict:
    """``correct`` is None when the reply could not be read as a verdict."""

    correct: bool | None
    reasoning: str
    raw: str
    input_tokens: int = 0


def _label(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    word = str(value).strip().strip(".!\"'").lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    return None


def parse_verdict(text: str) -> tuple[bool | None, str]:
    """(correct, reasoning) from a judge reply; (None, "") when no verdict is in it.

    Tries, in order: a JSON object with a ``label`` (or verdict/grade/correct)
    field, a ``label: X`` pair in loose text, and the last standalone
    CORRECT / INCORRECT / WRONG word.
    """
    for match in reversed(_OBJECT.findall(text)):
        try:
            obj = json.loads(match)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict):
            for key in ("label", "verdict", "grade", "judgement", "judgment", "correct"):
                if key in obj and (value := _label(obj[key])) is not None:
                    return value, str(obj.get("reasoning") or obj.get("reason") or "")
    fields = [v for m in _LABEL_FIELD.finditer(text) if (v := _label(m.group(1))) is not None]
    if fields:
        return fields[-1], ""
    words = _WORD.findall(text)
    if words:
        return words[-1].upper() == "CORRECT", ""
    return None, ""


def judge_answer(llm, question: str, reference: str | None, answer: str, abstain: bool = False) -> Verdict:
    """One judge call over ``prompts/judge.md.j2``; an unreadable reply gives ``correct=None``."""
    prompt = render_prompt("judge", question=question, reference=reference or "", answer=answer or "",
                           abstain=abstain)
    reply = llm.complete("", [{"role": "user", "content": prompt}])
    correct, reasoning = parse_verdict(reply.text)
    return Verdict(correct, reasoning, reply.text, reply.usage.input_tokens)
