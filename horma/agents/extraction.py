"""What the heuristic manager reads out of a segment: pure functions over units, returning plain data.

Nothing here touches the disk or remembers anything between calls (the
stemmer's memo, :mod:`horma.agents.stemming`, is a pure function's cache):
the manager (``horma.agents.heuristic_manager``) passes in what it already
knows (entity names seen before) and gets back :class:`SegmentFacts`, which it
then renders into notes. Keeping extraction apart is what lets it be tested on
strings and timed on its own.

The extractors are cheap on purpose: ingest of long assistant turns must not
be dominated by note writing, so every pass over a turn's text is one compiled
pattern or one split, never a search per match over the text before it.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from horma.agents.speakers import speaker_name
from horma.agents.stemming import stems
from horma.core import text as ht
from horma.workspace import Unit

GIST_WORDS = 14
MENTION_WORDS = 18

# General-purpose topic lexicons, matched on Porter stems (a few entries are stems already).
TOPICS: dict[str, str] = {
    "family": "family kid kids child children son daughter mom mother dad father parent parents husband wife "
              "brother sister grandma grandpa baby cousin aunt uncle marri wedding",
    "work": "work job career boss office company business startup project client colleague coworker promotion "
            "interview salary team",
    "education": "school class course study studi degree college university exam teacher student learn "
                 "research thesis certificate",
    "health": "health doctor hospital sick ill injury therapy medication exercise gym workout diet stress "
              "anxiety mental surgery",
    "hobbies": "hobby paint painting art draw drawing music guitar piano sing song dance photography craft "
               "pottery writing poem game gaming read reading book novel",
    "sports": "sport run running race marathon soccer football basketball tennis swim swimming hike hiking "
              "bike cycling yoga climb team match tournament",
    "travel": "travel trip vacation holiday flight visit visited abroad beach camping camp road tour country city",
    "pets": "pet dog puppy cat kitten bird fish horse turtle vet",
    "food": "food cook cooking recipe bake baking dinner lunch breakfast restaurant meal cake coffee",
    "home": "home house apartment move moved moving rent neighborhood garden room",
    "friends": "friend friends friendship party hang meet met community group support",
    "feelings": "happy sad proud grateful excited nervous scared lonely love hope",
}

_CAPS = re.compile(r"\b[A-Z][a-zA-Z'\-]*(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][a-zA-Z'\-]*)*")
_CAPWORD = re.compile(r"\b[A-Z][a-zA-Z'\-]*")
_NUMBER = re.compile(r"\d")
_POSSESSIVE = re.compile(r"['’]s$")
_RELATIVE: dict[str, tuple[str, int]] = {  # phrase -> (unit, offset)
    "yesterday": ("day", -1), "last night": ("day", -1), "today": ("day", 0), "tonight": ("day", 0),
    "tomorrow": ("day", 1), "last week": ("week", -1), "this week": ("week", 0), "next week": ("week", 1),
    "last weekend": ("weekend", -1), "this weekend": ("weekend", 0), "next weekend": ("weekend", 1),
    "last month": ("month", -1), "this month": ("month", 0), "next month": ("month", 1),
    "last year": ("year", -1), "this year": ("year", 0), "next year": ("year", 1),
}
_RELATIVE_RE = re.compile(r"\b(" + "|".join(sorted(_RELATIVE, key=len, reverse=True)) + r")\b", re.I)
_RELATIVE_HINT = re.compile(r"(?:yesterday|tonight|today|tomorrow|last|this|next)", re.I)
_NOT_ENTITIES = frozenset(
    ["i", "i'm", "i've", "i'll", "i'd", "im", "ive", "hey", "hi", "oh", "wow", "yeah", "yes", "no", "ok", "okay",
     "thanks", "thank", "hello", "lol", "haha", "omg", "sure", "cool", "awesome", "great", "good", "nice", "sorry",
     "please", "congrats", "congratulations", "btw", "totally", "absolutely", "definitely", "monday", "tuesday",
     "wednesday", "thursday", "friday", "saturday", "sunday", "mondays", "tuesdays", "wednesdays", "thursdays",
     "fridays", "saturdays", "sundays", "january", "february", "march", "april", "may", "june", "july", "august",
     "september", "october", "november", "december"]
)
_SENTENCE_PUNCT = frozenset(".!?")  # then a space
_OPENERS = frozenset("\"“(")
_MARKERS = frozenset("*-#>•|_")


@lru_cache(maxsize=1)
def _topics_by_stem() -> dict[str, tuple[str, ...]]:
    """Stem -> the topics whose lexicon has it, so a turn costs one lookup per distinct word."""
    vocab = {topic: words.split() for topic, words in TOPICS.items()}
    stemmed = stems(w for ws in vocab.values() for w in ws)
    out: dict[str, list[str]] = {}
    for topic, ws in vocab.items():
        for w in ws:
            if topic not in out.setdefault(stemmed[w], []):
                out[stemmed[w]].append(topic)
    return {s: tuple(ts) for s, ts in out.items()}


# -- per-turn extractors --------------------------------------------------------
def snippet(text: str, n: int) -> str:
    """The first ``n`` words of ``text``, with `` ...`` when cut."""
    words = text.split(None, n)
    if len(words) > n:
        return " ".join(words[:n]) + " ..."
    return " ".join(words)


def day_of(time: str) -> str:
    return time.split(" ")[0] if time else ""


@lru_cache(maxsize=1024)
def _base_date(day: str) -> dt.date | None:
    """``YYYY-MM-DD`` parsed once per day (strptime is slow; a session repeats its date on every turn)."""
    try:
        return dt.datetime.strptime(day, "%Y-%m-%d").date()
    except ValueError:
        return None


def anchor_dates(text: str, time: str) -> list[str]:
    """Relative time words in ``text`` as absolute dates from the session time, e.g. ``yesterday = 7 May 2023``."""
    return list(_anchored(text, time[:10]))


# A unit's text and day, memoised: units that go on in a segment organize the whole segment again
# (horma.agents.heuristic_manager), and a full one read its 200 turns' dates on every message.
@lru_cache(maxsize=4096)
def _anchored(text: str, day: str) -> tuple[str, ...]:
    base = _base_date(day)
    if base is None or not _RELATIVE_HINT.search(text):
        return ()
    out: list[str] = []
    for m in _RELATIVE_RE.finditer(text):
        phrase = m.group(1).lower()
        unit, off = _RELATIVE[phrase]
        if unit == "day":
            when = (base + dt.timedelta(days=off)).strftime("%-d %B %Y")
        elif unit in ("week", "weekend"):
            monday = base - dt.timedelta(days=base.weekday()) + dt.timedelta(weeks=off)
            when = f"the {unit} of {monday.strftime('%-d %B %Y')}"
        elif unit == "month":
            y, mth = divmod(base.year * 12 + base.month - 1 + off, 12)
            when = dt.date(y, mth + 1, 1).strftime("%B %Y")
        else:
            when = str(base.year + off)
        item = f"{phrase} = {when}"
        if item not in out:
            out.append(item)
    return tuple(out)


def _starts_sentence(text: str, start: int) -> bool:
    """Whether ``text[start]`` begins a sentence or a list item.

    A sentence starts at the very start, after ``.!?`` and a space, or after
    a quote or parenthesis, and after a colon and a space; markdown markers
    in between (``**``, ``- ``, ``#``, ``>``) do not count: ``**Tips**: Use``
    and ``Tips: - **Use**`` start items, so ``Use`` is not a name (assistant
    answers are full of these; on LoCoMo dev the colon rule drops one name).
    A look back over the few characters before ``start``, not a pattern
    searched over the whole text before it (that made long turns quadratic).
    """
    j = start
    marked = False
    while j > 0:
        c = text[j - 1]
        if c.isspace():
            j -= 1
        elif c in _MARKERS:
            j -= 1
            marked = True
        else:
            break
    if j == 0:
        return start == 0 or marked
    c = text[j - 1]
    if c in _OPENERS:
        return True
    if c in _SENTENCE_PUNCT:
        return j < start
    return c == ":" and j < start


def entities(text: str, speakers: Iterable[str]) -> list[str]:
    """Capitalised names that do not start a sentence (a cheap proper-noun finder), the speakers' left out."""
    return [name for name in _capitalised(text) if name not in speakers]


@lru_cache(maxsize=4096)  # memoised for the same reason as _anchored
def _capitalised(text: str) -> tuple[str, ...]:
    found: list[str] = []
    for m in _CAPS.finditer(text):
        name = m.group(0).strip(" '-")
        if _starts_sentence(text, m.start()):
            _, _, rest = name.partition(" ")
            if not rest:
                continue
            name = rest  # "Yesterday Jon Smith" -> "Jon Smith"
        # "Jun's" is Jun; "The Riverside Half" and "Riverside Half" are one entity
        words = [_POSSESSIVE.sub("", w) for w in name.split()]
        words = [w for w in words if w.lower() not in _NOT_ENTITIES]
        if words and words[0] == "The" and len(words) > 1:
            words = words[1:]
        name = " ".join(words)
        if len(name) < 3 or name.lower() in _NOT_ENTITIES:
            continue
        if name not in found:
            found.append(name)
    return tuple(found)


class KnownNames:
    """Entity names seen before, indexed by first word so a turn only checks names it may contain."""

    def __init__(self, names: Iterable[str] = ()):
        self.names: set[str] = set()
        self.by_word: dict[str, set[str]] = {}
        self.update(names)

    def update(self, names: Iterable[str]) -> None:
        for name in names:
            if name not in self.names:
                self.names.add(name)
                parts = name.split()
                self.by_word.setdefault(parts[0] if parts else "", set()).add(name)

    def __bool__(self) -> bool:
        return bool(self.names)

    def candidates(self, caps: set[str]) -> set[str]:
        out = set(self.by_word.get("", ()))
        for w in caps:
            out.update(self.by_word.get(w, ()))
        return out


def known_in(text: str, known: Iterable[KnownNames], found: list[str]) -> list[str]:
    """Known names (every word capitalised in ``text``) that ``text`` contains and ``found`` lacks."""
    caps = set(_CAPWORD.findall(text))
    cand: set[str] = set()
    for k in known:
        if k:
            cand |= k.candidates(caps)
    return [k for k in sorted(cand) if k not in found and all(w in caps for w in k.split()) and k in text]


def topics(text: str) -> list[str]:
    """The lexicon topics whose words (by stem) ``text`` uses, in lexicon order."""
    distinct = set(ht.words(text))
    return _topics_of(distinct, stems(distinct))


def _topics_of(distinct: Iterable[str], stemmed: Mapping[str, str]) -> list[str]:
    by_stem = _topics_by_stem()
    hits: set[str] = set()
    for w in distinct:
        hit = by_stem.get(stemmed[w])
        if hit:
            hits.update(hit)
    return [t for t in TOPICS if t in hits] if hits else []


def numbers(text: str) -> list[str]:
    """The whitespace-separated words of ``text`` that contain a digit."""
    return [w for w in text.split() if _NUMBER.search(w)]


def _key_phrases(words: list[list[str]], stemmed: Mapping[str, str], names: list[str], n: int) -> list[str]:
    stop = ht.STOPWORDS
    counts: dict[str, int] = {}
    surface: dict[str, str] = {}
    for ws in words:
        for w in ws:
            if len(w) < 4 or w in stop or re.fullmatch(r"\d+(?:am|pm)?", w):  # 9:15am splits to 9, 15am
                continue
            s = stemmed[w]
            counts[s] = counts.get(s, 0) + 1
            surface.setdefault(s, w)
    phrases = list(dict.fromkeys(names))[: n // 2]
    taken = {p.lower() for p in phrases}
    for s in sorted(counts, key=lambda s: (-counts[s], s)):
        if len(phrases) >= n:
            break
        if surface[s] not in taken:
            phrases.append(surface[s])
            taken.add(surface[s])
    return phrases[:n]


# -- a whole segment --------------------------------------------------------------
@dataclass(frozen=True)
class Turn:
    """One unit as the notes use it: where it is, what it names, what it is about."""

    lineno: int  # 1-based line in the raw segment
    unit: Unit
    day: str  # YYYY-MM-DD (or the unit's time as given)
    month: str  # YYYY-MM, or "undated"
    mention: str  # the words a mention page shows
    names: tuple[str, ...]  # entity names it mentions
    topics: tuple[str, ...]
    dates: tuple[str, ...]  # relative dates anchored to the unit's time


@dataclass(frozen=True)
class SegmentFacts:
    """Everything the notes need from one archived segment."""

    segment: str
    turns: tuple[Turn, ...]
    names: tuple[str, ...]  # entity names in order of first mention
    phrases: tuple[str, ...]
    actors: tuple[str, ...]  # speakers in order of first turn

    @property
    def units(self) -> list[Unit]:
        return [t.unit for t in self.turns]


def extract(segment: str, located: list[tuple[int, Unit]], known: KnownNames,
            opts: Mapping[str, Any]) -> SegmentFacts:
    """The facts of one segment (``located``: its units with their raw line numbers).

    ``known`` is read, not changed: names a turn introduces count as known for
    the turns after it through a local overlay, and come back in ``names`` for
    the caller to remember.
    """
    speakers = {u.actor for _, u in located}
    local = KnownNames()
    names: list[str] = []
    turns: list[Turn] = []
    words = [ht.words(u.text) for _, u in located]  # split once, stemmed in one batch
    stemmed = stems({w for ws in words for w in ws})
    for (n, u), turn_words in zip(located, words, strict=True):
        day = day_of(u.time)
        found: list[str] = []
        if opts.get("entity_notes", True):
            found = entities(u.text, speakers)
            if known or local:
                found += known_in(u.text, (known, local), found)
            local.update(found)
            for name in found:
                if name not in names:
                    names.append(name)
        turns.append(Turn(
            lineno=n, unit=u, day=day, month=day[:7] if len(day) >= 7 else "undated",
            mention=snippet(u.text, MENTION_WORDS), names=tuple(found),
            topics=tuple(_topics_of(set(turn_words), stemmed)) if opts.get("topic_notes", True) else (),
            dates=tuple(anchor_dates(u.text, u.time)) if opts.get("anchor_relative_dates", True) else (),
        ))
    units = [u for _, u in located]
    phrases = _key_phrases(words, stemmed, names, int(opts.get("max_key_phrases", 12))) if units else []
    return SegmentFacts(segment, tuple(turns), tuple(names), tuple(phrases),
                        tuple(dict.fromkeys(speaker_name(u.actor) for u in units)))


__all__ = [
    "GIST_WORDS", "MENTION_WORDS", "TOPICS", "KnownNames", "SegmentFacts", "Turn", "anchor_dates", "day_of",
    "entities", "extract", "known_in", "numbers", "snippet", "topics",
]
