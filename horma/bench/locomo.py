"""LoCoMo loader: ``locomo10.json``-format samples as conversations of units plus QA items.

Every consumer (ingest, the eval harness, the retrieval benchmark) reads the
dataset through here, so dates, image captions and evidence ids are
interpreted one way only. Validation is strict: a malformed or truncated file
fails with one error naming the sample and the field, before anything is
written anywhere.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from horma.errors import BadArgument
from horma.filecheck import file_problem
from horma.units import UnitError, check_name, check_unit
from horma.workspace import Unit

CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
DEV_CONVERSATIONS = 7  # the paper's split: dev = first 7 conversations, test = the rest
SPLITS = ("dev", "test", "all")

_SESSION_KEY = re.compile(r"session_(\d+)")
_DATE_KEY = re.compile(r"session_(\d+)_date_time")
_EVIDENCE_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


class DatasetError(BadArgument, ValueError):
    """A dataset file that cannot be used as it is; the message names the sample and field."""


@dataclass(frozen=True)
class Session:
    """One dated session of a conversation; every unit carries the session time."""

    index: int
    date_time: str  # as in the file, e.g. "1:56 pm on 8 May, 2023"
    time: str  # "2023-05-08 13:56"
    units: tuple[Unit, ...]

    def slug(self, sample_id: str) -> str:
        return f"{sample_id}-session-{self.index}"


@dataclass(frozen=True)
class QA:
    """One question. ``evidence`` holds normalised dia_ids that exist in the conversation."""

    index: int  # position in the sample's qa list
    question: str
    answer: str | None
    adversarial_answer: str | None
    evidence: tuple[str, ...]
    category: int
    dropped_evidence: tuple[str, ...] = ()  # ids in the file that name no turn of the conversation
    # When it is asked ("YYYY-MM-DD HH:MM"): LoCoMo has none; a set of ours may give one (``question_date``,
    # in the sessions' date format) for questions that count time back from their own day ("last Sunday").
    asked: str | None = None

    @property
    def category_name(self) -> str:
        return CATEGORY_NAMES.get(self.category, str(self.category))


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: tuple[Session, ...]
    qa: tuple[QA, ...]
    _by_id: dict[str, Unit] = field(default_factory=dict, compare=False, repr=False)

    def units(self) -> list[Unit]:
        return [u for s in self.sessions for u in s.units]

    def unit(self, unit_id: str) -> Unit:
        if not self._by_id:
            self._by_id.update((u.id, u) for u in self.units())
        return self._by_id[unit_id]


def parse_session_time(text: str) -> str:
    """``"1:56 pm on 8 May, 2023"`` -> ``"2023-05-08 13:56"``; ValueError when it is not that shape."""
    cleaned = " ".join(text.replace(",", " ").split()).lower()
    for fmt in ("%I:%M %p on %d %B %Y", "%I:%M%p on %d %B %Y", "%I:%M %p on %d %b %Y"):
        try:
            return dt.datetime.strptime(cleaned, fmt).strftime("%Y-%m-%d %H:%M")
        except ValueError:
            continue
    raise ValueError(f"unrecognised date {text!r} (expected like '1:56 pm on 8 May, 2023')")


def normalize_evidence(raw: object) -> list[str]:
    """Evidence ids as written, normalised: ``"D8:6; D9:17"`` -> two ids, ``"D:11:26"`` -> ``"D11:26"``."""
    items = raw if isinstance(raw, list) else [raw]
    out: list[str] = []
    for item in items:
        for m in _EVIDENCE_ID.finditer(str(item)):
            uid = f"D{int(m.group(1))}:{int(m.group(2))}"
            if uid not in out:
                out.append(uid)
    return out


def turn_text(turn: dict) -> str:
    """A turn's text; an image turn keeps what the image showed, as its caption."""
    text = turn["text"]
    caption = turn.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        text = f"{text} [shares an image: {caption.strip()}]"
    return text


def _need(obj: dict, key: str, kind: type | tuple[type, ...], where: str):
    if key not in obj:
        raise DatasetError(f"{where}: missing field '{key}'")
    value = obj[key]
    if not isinstance(value, kind):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise DatasetError(f"{where}: field '{key}' must be {names}, got {type(value).__name__}")
    return value


def _parse_session(conv: dict, n: int, where: str) -> Session:
    turns = conv[f"session_{n}"]
    swhere = f"{where}: session_{n}"
    if not isinstance(turns, list):
        raise DatasetError(f"{swhere} must be a list of turns, got {type(turns).__name__}")
    if not turns:
        raise DatasetError(f"{swhere} is empty")
    date_key = f"session_{n}_date_time"
    date_time = _need(conv, date_key, str, where)
    try:
        time = parse_session_time(date_time)
    except ValueError as exc:
        raise DatasetError(f"{where}: {date_key}: {exc}") from None
    units = []
    for i, turn in enumerate(turns):
        twhere = f"{swhere}[{i}]"
        if not isinstance(turn, dict):
            raise DatasetError(f"{twhere} must be an object, got {type(turn).__name__}")
        speaker = _need(turn, "speaker", str, twhere)
        dia_id = _need(turn, "dia_id", str, twhere)
        _need(turn, "text", str, twhere)
        if not dia_id.strip() or any(c.isspace() or c == "|" for c in dia_id):
            raise DatasetError(f"{twhere}: field 'dia_id' {dia_id!r} is empty or has spaces or '|'")
        try:
            units.append(check_unit(Unit(id=dia_id, time=time, actor=speaker, text=turn_text(turn))))
        except UnitError as exc:
            raise DatasetError(f"{twhere}: {exc}") from None
    return Session(index=n, date_time=date_time, time=time, units=tuple(units))


def _parse_qa(item: object, i: int, known: set[str], where: str) -> QA:
    qwhere = f"{where}: qa[{i}]"
    if not isinstance(item, dict):
        raise DatasetError(f"{qwhere} must be an object, got {type(item).__name__}")
    question = _need(item, "question", str, qwhere)
    if not question.strip():
        raise DatasetError(f"{qwhere}: field 'question' is empty")
    category = _need(item, "category", (int, str), qwhere)
    try:
        category = int(category)
    except ValueError:
        raise DatasetError(f"{qwhere}: field 'category' must be an integer, got {category!r}") from None
    evidence = normalize_evidence(_need(item, "evidence", (list, str), qwhere))
    answer = item.get("answer")
    adversarial = item.get("adversarial_answer")
    if answer is None and adversarial is None:
        raise DatasetError(f"{qwhere}: missing field 'answer' (or 'adversarial_answer')")
    asked = None
    if "question_date" in item:
        try:
            asked = parse_session_time(_need(item, "question_date", str, qwhere))
        except ValueError as exc:
            raise DatasetError(f"{qwhere}: question_date: {exc}") from None
    return QA(
        index=i,
        question=question,
        answer=None if answer is None else str(answer),
        adversarial_answer=None if adversarial is None else str(adversarial),
        evidence=tuple(e for e in evidence if e in known),
        category=category,
        dropped_evidence=tuple(e for e in evidence if e not in known),
        asked=asked,
    )


def parse_sample(sample: object, position: int) -> Conversation:
    """One sample of the list; raises DatasetError naming the sample and field."""
    if not isinstance(sample, dict):
        raise DatasetError(f"sample #{position}: must be an object, got {type(sample).__name__}")
    sid = sample.get("sample_id")
    where = f"sample {sid}" if isinstance(sid, str) and sid else f"sample #{position}"
    sid = _need(sample, "sample_id", str, where)
    try:
        check_name(sid, "sample_id")  # it names the conversation's workspace folder
    except UnitError as exc:
        raise DatasetError(f"{where}: {exc}") from None
    conv = _need(sample, "conversation", dict, where)
    speakers = (_need(conv, "speaker_a", str, f"{where}: conversation"),
                _need(conv, "speaker_b", str, f"{where}: conversation"))
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.fullmatch(k)))
    if not numbers:
        raise DatasetError(f"{where}: conversation has no session_<n> fields")
    sessions = tuple(_parse_session(conv, n, f"{where}: conversation") for n in numbers)
    seen: set[str] = set()
    for s in sessions:
        for u in s.units:
            if u.id in seen:
                raise DatasetError(f"{where}: session_{s.index}: duplicate dia_id {u.id!r}")
            seen.add(u.id)
    qa_items = _need(sample, "qa", list, where)
    qa = tuple(_parse_qa(item, i, seen, where) for i, item in enumerate(qa_items))
    return Conversation(sample_id=sid, speakers=speakers, sessions=sessions, qa=qa)


def parse_samples(data: object, source: str = "data") -> list[Conversation]:
    if not isinstance(data, list):
        raise DatasetError(f"{source}: expected a JSON list of samples, got {type(data).__name__}")
    if not data:
        raise DatasetError(f"{source}: the list of samples is empty")
    convs = [parse_sample(s, i) for i, s in enumerate(data)]
    ids = [c.sample_id for c in convs]
    dup = next((x for x in ids if ids.count(x) > 1), None)
    if dup is not None:
        raise DatasetError(f"{source}: sample_id {dup!r} appears twice")
    return convs


def load_locomo(path: str | os.PathLike[str]) -> list[Conversation]:
    """Read and validate a LoCoMo file (the full ``locomo10.json`` or a subset of its samples)."""
    p = Path(path)
    if problem := file_problem(p):
        raise DatasetError(f"{path}: {problem}")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path}: not valid JSON (truncated?): {exc.msg} at line {exc.lineno}") from None
    except UnicodeDecodeError:
        raise DatasetError(f"{path}: not UTF-8 text") from None
    return parse_samples(data, str(path))


def select_split(convs: list[Conversation], split: str) -> list[Conversation]:
    """``dev`` = first 7 conversations, ``test`` = the rest, ``all`` = every one (file order)."""
    if split == "dev":
        return convs[:DEV_CONVERSATIONS]
    if split == "test":
        return convs[DEV_CONVERSATIONS:]
    if split == "all":
        return list(convs)
    raise DatasetError(f"unknown split {split!r}; choose one of {', '.join(SPLITS)}")


def questions(conv: Conversation, categories: set[int] | frozenset[int] = frozenset({2, 4, 5})) -> list[QA]:
    return [q for q in conv.qa if q.category in categories]
