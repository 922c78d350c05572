"""LongMemEval: one history (the question's haystack sessions) per question.

The file is a JSON list; each item has ``question_id``, ``question_type``,
``question``, ``answer``, ``question_date`` (``"2023/05/20 (Sat) 02:21"``),
``haystack_session_ids``, ``haystack_dates``, ``haystack_sessions`` (lists of
``{role, content, has_answer?}`` turns) and ``answer_session_ids``. A
``question_id`` ending in ``_abs`` is an abstention question.

Each question becomes its own task: its haystack is recorded session by
session (each session dated), units are ``<session_id>:<turn_index>``, and
the evidence is the turns marked ``has_answer``. The paper's protocol drops
``multi-session`` (367 of 500 questions remain) and gives a 50K budget.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Sequence
from pathlib import Path

from horma.bench.qa import QAItem, QATask, Segment
from horma.errors import BadArgument
from horma.filecheck import file_problem
from horma.units import UnitError, check_unit
from horma.workspace import Unit

QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "temporal-reasoning",
    "knowledge-update",
    "multi-session",
)
DEFAULT_TYPES = tuple(t for t in QUESTION_TYPES if t != "multi-session")
DEFAULT_BUDGET = 50_000

_UNSAFE = re.compile(r"[\s|]+")
_DATE = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})(?:\s*\(\w+\))?\s*(\d{1,2}):(\d{2})")


class LongMemEvalError(BadArgument, ValueError):
    """A LongMemEval file that cannot be used; the message names the question and field."""


def parse_date(text: str) -> str:
    """``"2023/05/20 (Sat) 02:21"`` -> ``"2023-05-20 02:21"``."""
    m = _DATE.fullmatch(text.strip()) if isinstance(text, str) else None
    if not m:
        raise ValueError(f"unrecognised date {text!r} (expected like '2023/05/20 (Sat) 02:21')")
    y, mo, d, h, mi = (int(g) for g in m.groups())
    return dt.datetime(y, mo, d, h, mi).strftime("%Y-%m-%d %H:%M")


def _unit_id(session_id: str, turn: int) -> str:
    """Session ids are free text in the file; a unit id may not hold spaces or '|'."""
    return f"{_UNSAFE.sub('_', session_id)}:{turn}"


def _need(obj: dict, key: str, kind: type | tuple[type, ...], where: str):
    if key not in obj:
        raise LongMemEvalError(f"{where}: missing field '{key}'")
    if not isinstance(obj[key], kind):
        raise LongMemEvalError(f"{where}: field '{key}' has the wrong type ({type(obj[key]).__name__})")
    return obj[key]


def parse_item(item: object, position: int) -> QATask:
    """One question and its haystack as a task; LongMemEvalError names what is wrong."""
    if not isinstance(item, dict):
        raise LongMemEvalError(f"item #{position}: must be an object, got {type(item).__name__}")
    qid = item.get("question_id")
    where = f"question {qid}" if isinstance(qid, str) and qid else f"item #{position}"
    qid = _need(item, "question_id", str, where)
    qtype = _need(item, "question_type", str, where)
    if qtype not in QUESTION_TYPES:
        raise LongMemEvalError(f"{where}: unknown question_type {qtype!r}")
    question = _need(item, "question", str, where)
    answer = _need(item, "answer", (str, int, float), where)
    asked = _need(item, "question_date", str, where)
    sids = _need(item, "haystack_session_ids", list, where)
    dates = _need(item, "haystack_dates", list, where)
    sessions = _need(item, "haystack_sessions", list, where)
    if not (len(sids) == len(dates) == len(sessions)):
        raise LongMemEvalError(f"{where}: haystack_session_ids, haystack_dates and haystack_sessions "
                               f"differ in length ({len(sids)}, {len(dates)}, {len(sessions)})")
    if not sessions:
        raise LongMemEvalError(f"{where}: haystack_sessions is empty")
    try:
        asked_time = parse_date(asked)
    except ValueError as exc:
        raise LongMemEvalError(f"{where}: question_date: {exc}") from None
    segments: list[Segment] = []
    evidence: list[Unit] = []
    for n, (sid, date, turns) in enumerate(zip(sids, dates, sessions, strict=True)):
        swhere = f"{where}: haystack_sessions[{n}]"
        if not isinstance(turns, list):
            raise LongMemEvalError(f"{swhere} must be a list of turns")
        try:
            time = parse_date(date)
        except ValueError as exc:
            raise LongMemEvalError(f"{where}: haystack_dates[{n}]: {exc}") from None
        units = []
        for t, turn in enumerate(turns):
            twhere = f"{swhere}[{t}]"
            if not isinstance(turn, dict):
                raise LongMemEvalError(f"{twhere} must be an object")
            role = _need(turn, "role", str, twhere)
            content = _need(turn, "content", str, twhere)
            if not content.strip():
                continue  # an empty turn carries nothing to remember
            try:
                unit = check_unit(Unit(id=_unit_id(str(sid), t), time=time, actor=role, text=content))
            except UnitError as exc:
                raise LongMemEvalError(f"{twhere}: {exc}") from None
            units.append(unit)
            if turn.get("has_answer"):
                evidence.append(unit)
        if units:
            segments.append(Segment(slug=f"session-{sid}", time=time, units=tuple(units)))
    abstain = qid.endswith("_abs")
    qa = QAItem(
        id=qid,
        question=question,
        reference=str(answer),
        category=qtype,
        evidence=tuple(u.id for u in evidence),
        evidence_texts=tuple(u.text for u in evidence),
        abstain=abstain,
        asked=asked_time,
    )
    segments.sort(key=lambda s: s.time or "")  # the manager records history in the order it happened
    return QATask(id=qid, segments=tuple(segments), items=(qa,))


def load_longmemeval(path: str | os.PathLike[str], types: Sequence[str] = DEFAULT_TYPES) -> list[QATask]:
    """Read and validate a LongMemEval file; keep the questions of ``types`` (file order)."""
    unknown = [t for t in types if t not in QUESTION_TYPES]
    if unknown:
        raise LongMemEvalError(f"unknown question type {unknown[0]!r}; choose from {', '.join(QUESTION_TYPES)}")
    p = Path(path)
    if problem := file_problem(p):
        raise LongMemEvalError(f"{path}: {problem}")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise LongMemEvalError(f"{path}: not valid JSON (truncated?): {exc.msg} at line {exc.lineno}") from None
    except UnicodeDecodeError:
        raise LongMemEvalError(f"{path}: not UTF-8 text") from None
    if not isinstance(data, list) or not data:
        raise LongMemEvalError(f"{path}: expected a non-empty JSON list of questions")
    tasks = []
    seen: set[str] = set()
    for i, item in enumerate(data):
        if (isinstance(item, dict) and item.get("question_type") in QUESTION_TYPES
                and item["question_type"] not in types):
            continue
        task = parse_item(item, i)
        if task.id in seen:
            raise LongMemEvalError(f"{path}: question_id {task.id!r} appears twice")
        seen.add(task.id)
        tasks.append(task)
    return tasks
