"""The heuristic manager: deterministic notes for each archived segment, written through the sandbox.

Zero LLM calls, so it is the offline default and fast enough for bulk ingest.
For each new raw segment it writes, in the write view and with one bash
command handing all files to the ``hwrite`` helper (each file lands by
rename, so readers never see half a file):

- ``notes/sessions/<segment>.md``: date, participants, key phrases, one line per
  turn (a gist, or the verbatim text with ``verbatim_quotes``) citing unit ids
  and raw line numbers, and relative dates anchored to the session date;
- ``notes/people/<actor>.md`` and ``notes/entities/<name>.md``: every raw line
  that mentions the person or named thing, by date, with its line number;
- ``notes/topics/<topic>.md``: lines about family, work, hobbies, ...;
- ``notes/timeline.md``: one dated line per segment; ``INDEX.md``;
- ``notes/state.md`` with ``track_state``: when each person and name was last seen;
- the segment's shard of the search index (``.horma/index/``) and one per changed note,
  built with the same analysis ``hsearch`` reads them with.

Options come from the skill library (``horma.skills.heuristic_options``); the
defaults below apply to options it does not set.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import os
import re
import secrets
import shlex
import time
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from horma.context import human_time
from horma.resources import SANDBOX_BIN
from horma.workspace import INDEX_FILE, NOTES_DIR, Unit, Workspace, WorkspaceError, parse_note, parse_raw_line, slugify

DEFAULT_OPTIONS: dict[str, bool | int] = {
    "entity_notes": True,
    "session_notes": True,
    "topic_notes": True,
    "timeline": True,
    "anchor_relative_dates": True,
    "verbatim_quotes": False,
    "keep_numbers": True,
    "track_state": False,
    "max_key_phrases": 12,
}
GIST_WORDS = 14
MENTION_WORDS = 18

# General-purpose topic lexicons (stems are matched after the index's own stemming).
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
_SENTENCE_END = re.compile(r"(?:^|[.!?]\s+|[\"“(]\s*)$")
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
_NOT_ENTITIES = frozenset(
    "i i'm i've i'll i'd im ive hey hi oh wow yeah yes no ok okay thanks thank hello lol haha omg sure cool "
    "awesome great good nice sorry please congrats congratulations btw totally absolutely definitely "
    "monday tuesday wednesday thursday friday saturday sunday "
    "mondays tuesdays wednesdays thursdays fridays saturdays sundays january february march april may june july "
    "august september october november december".split()
)


@lru_cache(maxsize=1)
def text_tools() -> ModuleType:
    """The sandbox helpers' analysis module (stdlib-only), so host and ``hsearch`` stem alike."""
    path = SANDBOX_BIN / "hormatext.py"
    spec = importlib.util.spec_from_file_location("horma_sandbox_hormatext", path)
    if spec is None or spec.loader is None:
        raise WorkspaceError(f"{path}: the sandbox helper module is missing")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def options(skills: dict | None) -> dict[str, bool | int]:
    out = dict(DEFAULT_OPTIONS)
    for key, value in (skills or {}).items():
        if key in out:
            out[key] = value
    return out


# -- rendering ---------------------------------------------------------------
@lru_cache(maxsize=1 << 16)
def _q(value: str) -> str:
    """A YAML scalar: JSON's double-quoted strings are valid YAML and need no YAML library.

    Cached: a page re-renders every unit id it cites each time it changes.
    """
    return json.dumps(value, ensure_ascii=False)


def render_note(title: str, time: str | None, sources: dict[str, list[str]], links: list[str], body: str) -> str:
    """Front matter (title, time, sources, links) + body, in the format ``parse_note`` reads."""
    lines = ["---", f"title: {_q(title)}"]
    if time:
        lines.append(f"time: {_q(time)}")
    lines.append("sources:" if sources else "sources: []")
    for path, units in sources.items():
        lines.append(f"- path: {_q(path)}")
        lines.append(f"  units: [{', '.join(_q(u) for u in units)}]")
    lines.append("links:" if links else "links: []")
    lines.extend(f"- {_q(link)}" for link in links)
    lines.append("---")
    return "\n".join(lines) + "\n" + body.rstrip() + "\n"


def _snippet(text: str, n: int) -> str:
    words = text.split()
    return " ".join(words[:n]) + (" ..." if len(words) > n else "")


@lru_cache(maxsize=4096)
def _mention_words(text: str) -> str:
    """A turn's snippet in mention pages; cached since one turn is added to several notes."""
    return _snippet(text, MENTION_WORDS)


def _day(time: str) -> str:
    return time.split(" ")[0] if time else ""


@lru_cache(maxsize=1024)
def _base_date(day: str) -> dt.date | None:
    """``YYYY-MM-DD`` parsed once per day: strptime is slow and a session repeats its date on every turn."""
    try:
        return dt.datetime.strptime(day, "%Y-%m-%d").date()
    except ValueError:
        return None


def anchor_dates(text: str, time: str) -> list[str]:
    """Relative time words in ``text`` as absolute dates from the session time, e.g. ``yesterday = 7 May 2023``."""
    base = _base_date(time[:10])
    if base is None:
        return []
    out = []
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
    return out


def entities(text: str, speakers: set[str]) -> list[str]:
    """Capitalised names that do not start a sentence (a cheap proper-noun finder)."""
    found = []
    for m in _CAPS.finditer(text):
        name = m.group(0).strip(" '-")
        if _SENTENCE_END.search(text[: m.start()]):
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
        if len(name) < 3 or name in speakers or name.lower() in _NOT_ENTITIES:
            continue
        if name not in found:
            found.append(name)
    return found


# -- notes state -------------------------------------------------------------
@dataclass
class _Page:
    """One month of a mention note: dated lines pointing at raw lines."""

    sources: dict[str, list[str]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)


_LINE = re.compile(r"^- (\S+) (\S+) \((\S+):(\d+)\) ")
_PAGE_ROW = re.compile(r"^- \[(\d{4}-\d{2}|undated)\]\((\S+)\): (\d+) mention")


@dataclass
class _Mentions:
    """A person, entity or topic: a summary note plus one page per month of mentions.

    Pages keep a long memory cheap to update: a new segment rewrites the
    summary and the current month's page, never the whole history.
    """

    path: str  # notes/<folder>/<slug>.md
    title: str
    kind: str
    counts: dict[str, int] = field(default_factory=dict)  # month -> mentions
    pages: dict[str, _Page] = field(default_factory=dict)  # loaded pages only
    first: str = ""
    last: str = ""
    dirty: set[str] = field(default_factory=set)

    def page_path(self, month: str) -> str:
        return f"{self.path[:-3]}/{month}.md"

    def add(self, ws: Workspace, st: "_State", seg: str, lineno: int, unit: Unit) -> None:
        day = _day(unit.time)
        month = day[:7] if len(day) >= 7 else "undated"
        page = self.pages.get(month)
        rel = self.page_path(month)
        if page is None or (month not in self.dirty and not _fresh(ws, st, rel)):
            page = self.pages[month] = _load_page(ws, rel)
            _loaded(ws, st, rel)
        units = page.sources.setdefault(seg, [])
        if unit.id in units:
            return
        units.append(unit.id)
        page.lines.append(f"- {day} {unit.id} ({seg}:{lineno}) {unit.actor}: {_mention_words(unit.text)}")
        self.counts[month] = self.counts.get(month, 0) + 1
        self.first = min(self.first or day, day)
        self.last = max(self.last, day)
        self.dirty.add(month)

    def render(self) -> dict[str, str]:
        """The summary and the changed pages, by path."""
        span = f"{self.first} .. {self.last}" if self.first != self.last else self.first
        total = sum(self.counts.values())
        folder = self.path.rsplit("/", 1)[0] + "/"
        rows = [f"- [{m}]({self.page_path(m).removeprefix(folder)}): {self.counts[m]} mention(s)"
                for m in sorted(self.counts)]
        body = (f"# {self.title}\n\n{self.kind}; {total} mention(s) from {span}.\n"
                f"Pages by month (each line: date, unit id, (raw file:line), speaker: words):\n\n" + "\n".join(rows))
        links = [self.page_path(m) for m in sorted(self.counts)]
        out = {self.path: render_note(self.title, span or None, {}, links, body)}
        for m in sorted(self.dirty):
            page = self.pages[m]
            out[self.page_path(m)] = render_note(
                f"{self.title}, {m}", m, page.sources, [self.path],
                f"# {self.title}, {m}\n\n{self.kind}.\n\n" + "\n".join(page.lines))
        self.dirty.clear()
        return out


def _load_page(ws: Workspace, rel: str) -> _Page:
    path = ws.root / rel
    if not path.is_file():
        return _Page()
    parsed = parse_note(rel, path.read_text(encoding="utf-8"))
    return _Page({s["path"]: list(s["units"]) for s in parsed.sources},
                 [ln for ln in parsed.body.splitlines() if _LINE.match(ln)])


def _load_mentions(ws: Workspace, rel: str, title: str, kind: str) -> _Mentions:
    note = _Mentions(rel, title, kind)
    path = ws.root / rel
    if not path.is_file():
        return note
    parsed = parse_note(rel, path.read_text(encoding="utf-8"))
    for line in parsed.body.splitlines():
        m = _PAGE_ROW.match(line)
        if m:
            note.counts[m.group(1)] = int(m.group(3))
    span = (parsed.time or "").split(" .. ")
    note.first, note.last = span[0], span[-1]
    return note


@dataclass
class _State:
    """What the manager knows about one workspace's notes, kept between segments of one process."""

    mentions: dict[str, _Mentions] = field(default_factory=dict)
    timeline: list[str] | None = None
    memo: dict[str, str] = field(default_factory=dict)  # note line -> its index terms
    mtimes: dict[str, int] = field(default_factory=dict)
    counts: dict[str, set[str]] | None = None  # notes/<folder>/ -> note file names
    known: set[str] = field(default_factory=set)  # entity names seen mid-sentence, then found anywhere
    known_by_word: dict[str, set[str]] = field(default_factory=dict)  # first word -> known names
    checked: set[str] = field(default_factory=set)  # notes found fresh during the current segment
    latest: dict[str, str] = field(default_factory=dict)  # person or name -> its latest mention line


_STATES: dict[Path, _State] = {}


def _state(ws: Workspace) -> _State:
    st = _STATES.get(ws.root)
    if st is None:
        st = _STATES[ws.root] = _State()
        _remember(st, _entity_titles(ws))
    return st


def _remember(st: _State, names: list[str] | set[str]) -> None:
    """Add entity names to ``st.known``, indexed by first word so a turn only checks names it may contain."""
    for name in names:
        if name not in st.known:
            st.known.add(name)
            first = name.split()[0] if name.split() else ""
            st.known_by_word.setdefault(first, set()).add(name)


def _known_in(st: _State, text: str, found: list[str]) -> list[str]:
    """Known names (every word capitalised in ``text``) that ``text`` contains and ``found`` lacks."""
    caps = set(_CAPWORD.findall(text))
    cand = set(st.known_by_word.get("", ()))
    for w in caps:
        cand.update(st.known_by_word.get(w, ()))
    return [k for k in sorted(cand) if k not in found and all(w in caps for w in k.split()) and k in text]


def _fresh(ws: Workspace, st: _State, rel: str) -> bool:
    """Whether our cached copy of a note is what is on disk (someone else may have edited it).

    Checked once per note per segment: while a segment is organized only this
    process writes (it holds the writer lock), so one stat is enough.
    """
    if rel in st.checked:
        return True
    if rel in st.mtimes and st.mtimes[rel] == _mtime(ws, rel):
        st.checked.add(rel)
        return True
    return False


def _loaded(ws: Workspace, st: _State, rel: str) -> None:
    """Remember the mtime of a note just read from disk."""
    st.mtimes[rel] = _mtime(ws, rel)
    st.checked.add(rel)


def _entity_titles(ws: Workspace) -> set[str]:
    """Names of the entity notes already on disk (their title line), so a new process still finds them."""
    out = set()
    for p in (ws.root / NOTES_DIR / "entities").glob("*.md"):
        with p.open(encoding="utf-8") as fh:
            for line in (fh.readline(), fh.readline()):
                if line.startswith("title: "):
                    try:
                        out.add(str(json.loads(line[7:])))
                    except ValueError:
                        out.add(line[7:].strip().strip("'\""))
    return out


def _mtime(ws: Workspace, rel: str) -> int:
    try:
        return os.stat(f"{ws.root}/{rel}").st_mtime_ns  # not pathlib: this runs for every touched note
    except OSError:
        return -1


@lru_cache(maxsize=1 << 14)
def _note_rel(folder: str, name: str) -> str:
    return f"{NOTES_DIR}/{folder}/{slugify(name)}.md"


def _mention_note(ws: Workspace, st: _State, folder: str, name: str, kind: str) -> _Mentions:
    rel = _note_rel(folder, name)
    note = st.mentions.get(rel)
    if note is None or not _fresh(ws, st, rel):
        note = st.mentions[rel] = _load_mentions(ws, rel, name, kind)
        _loaded(ws, st, rel)
    return note


@lru_cache(maxsize=1)
def _topic_stems(ht: ModuleType) -> dict[str, frozenset[str]]:
    return {topic: frozenset(ht.terms(vocab)) for topic, vocab in TOPICS.items()}


@lru_cache(maxsize=1)
def _topics_by_stem(ht: ModuleType) -> dict[str, frozenset[str]]:
    """Stem -> the topics whose lexicon has it, so a turn costs one lookup per word, not one test per topic."""
    out: dict[str, set[str]] = {}
    for topic, vocab in _topic_stems(ht).items():
        for stem in vocab:
            out.setdefault(stem, set()).add(topic)
    return {stem: frozenset(topics) for stem, topics in out.items()}


def _read_timeline(ws: Workspace) -> list[str]:
    path = ws.root / NOTES_DIR / "timeline.md"
    if not path.is_file():
        return []
    return [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.startswith("- ")]


# -- the policy --------------------------------------------------------------
def _key_phrases(ht: ModuleType, units: list[Unit], names: list[str], n: int) -> list[str]:
    counts: dict[str, int] = {}
    surface: dict[str, str] = {}
    for u in units:
        for w in ht.words(u.text):
            if len(w) < 4 or w in ht.STOPWORDS or w.isdigit():
                continue
            s = ht.stem_cached(w)
            counts[s] = counts.get(s, 0) + 1
            surface.setdefault(s, w)
    ranked = sorted(counts, key=lambda s: (-counts[s], s))
    phrases = list(dict.fromkeys(names))[: n // 2]
    for s in ranked:
        if len(phrases) >= n:
            break
        if surface[s] not in (p.lower() for p in phrases):
            phrases.append(surface[s])
    return phrases[:n]


def _session_note(seg: str, located: list[tuple[int, Unit]], names: list[str], phrases: list[str],
                  links: list[str], opts: dict) -> str:
    units = [u for _, u in located]
    when = units[0].time
    actors = list(dict.fromkeys(u.actor for u in units))
    rows = []
    for i, u in located:
        text = " ".join(u.text.split()) if opts["verbatim_quotes"] else _snippet(u.text, GIST_WORDS)
        extra = []
        if opts["anchor_relative_dates"]:
            extra += anchor_dates(u.text, u.time)
        if opts["keep_numbers"] and not opts["verbatim_quotes"] and _NUMBER.search(u.text) and text.endswith("..."):
            extra.append("numbers: " + " ".join(w for w in u.text.split() if _NUMBER.search(w)))
        tail = f" ({'; '.join(extra)})" if extra else ""
        rows.append(f"- {u.id} (line {i}) {u.actor}: {text}{tail}")
    body = (
        f"# Session of {human_time(when)} ({when})\n\n"
        f"raw: {seg} (lines {located[0][0]}-{located[-1][0]}, units {units[0].id} .. {units[-1].id})\n"
        f"participants: {', '.join(actors)}\n"
        f"key phrases: {', '.join(phrases)}\n"
        + (f"names mentioned: {', '.join(names)}\n" if names else "")
        + "\n## Turns\n" + "\n".join(rows)
    )
    return render_note(f"Session {human_time(when)}: {', '.join(actors)}", when,
                       {seg: [u.id for u in units]}, links, body)


STATE_NAMES = 40


def _state_note(st: _State, segment: str, located: list[tuple[int, Unit]], names: list[str]) -> str:
    """Last known mention of each person (and of the most recent names): where to look for current facts."""
    for n, u in located:
        line = f"{_day(u.time)} {u.id} ({segment}:{n}): {_snippet(u.text, MENTION_WORDS)}"
        st.latest[f"person {u.actor}"] = line
        for name in names:
            if name in u.text:
                st.latest[f"name {name}"] = line
    people = sorted(k for k in st.latest if k.startswith("person "))
    recent = sorted((k for k in st.latest if k.startswith("name ")), key=lambda k: st.latest[k], reverse=True)
    rows = [f"- {k[7:]}: {st.latest[k]}" for k in people]
    rows += [f"- {k[5:]}: {st.latest[k]}" for k in recent[:STATE_NAMES]]
    return render_note("Current state", _day(located[-1][1].time) if located else None, {}, ["notes/timeline.md"],
                       "# Current state\n\nLatest mention of each person, then of the most recently named things "
                       "(date id (raw file:line): words).\n\n" + "\n".join(rows))


def _index_md(ws_notes: dict[str, int], timeline: list[str], actors: list[str]) -> str:
    span = ""
    if timeline:
        span = f"{timeline[0].split()[1]} .. {timeline[-1].split()[1]}"
    folders = "\n".join(f"- `notes/{k}/` {v} note(s)" for k, v in sorted(ws_notes.items()))
    return (
        "# INDEX\n\n"
        f"Memory of {', '.join(actors) or 'this workspace'}; {len(timeline)} segment(s), {span}.\n\n"
        "- `raw/<time>__<slug>/units.log`: the exact archive, one line per unit `ID | time | actor: text`.\n"
        "- `notes/timeline.md`: one line per segment, oldest first, with its key phrases.\n"
        "- `notes/sessions/`: per segment: date, participants, key phrases, one line per turn (id, raw line).\n"
        f"{folders}\n"
        "- people/entities/topics notes list every raw line that mentions them as `date id (raw file:line)`.\n\n"
        "Search: `hsearch WORDS` ranks raw lines (then notes) by relevance; `grep -rn WORD raw notes` for exact words.\n"
    )


def write_stream(files: dict[str, str]) -> str:
    """The ``hwrite`` input for ``files``: length-prefixed blocks, so any content passes unescaped."""
    return "".join(f"@hwrite {len(text)} {path}\n{text}" for path, text in files.items())


# Starts `hwrite --serve` as a coprocess of the sandbox shell on first use (or
# after the shell was restarted), hands it the payload path and waits for its
# one-line reply: all bash builtins, so a segment costs no process start.
_SERVE = (
    'if ! { [ -n "${HORMA_HW_PID:-}" ] && kill -0 "$HORMA_HW_PID" 2>/dev/null; }; then '
    "coproc HORMA_HW { exec hwrite --serve; }; fi; "
    'printf "%s\\n" {payload} >&"${{HORMA_HW[1]}}" && IFS= read -r -t {timeout} __horma_reply <&"${{HORMA_HW[0]}}"; '
    'printf "%s\\n" "$__horma_reply"; [ "${{__horma_reply%% *}}" = ok ]'
)


def _write_through(sandbox, ws: Workspace, files: dict[str, str]) -> None:
    """Write ``files`` with the sandbox's ``hwrite`` in the write view.

    The bytes travel as a payload file in ``.horma/index/`` (the folder the
    write view may change) that ``hwrite`` consumes, so the command stays a few
    hundred bytes: the shell reads a long command in blocks, but bash still
    parses a heredoc in ``eval`` at ~0.15 us a byte (a segment's 70 KB of notes
    took ~11 ms that way, the payload file ~0.1 ms), and the trajectory keeps
    the short command instead of whole notes.
    """
    name = f".payload-{secrets.token_hex(8)}"
    payload = ws.meta / "index" / name
    payload.parent.mkdir(parents=True, exist_ok=True)
    payload.write_text(write_stream(files), encoding="utf-8")
    home = getattr(sandbox, "home", None)
    timeout = 30
    serve = _SERVE.replace("{payload}", shlex.quote(f".horma/index/{name}")).replace("{timeout}", str(timeout))
    serve = serve.replace("{{", "{").replace("}}", "}")
    cmd = (f"cd {shlex.quote(home)} && " if home else "") + serve
    try:
        res = sandbox.exec(cmd, timeout=timeout + 5)
    finally:
        payload.unlink(missing_ok=True)
    if res.exit_code != 0:
        raise WorkspaceError(f"heuristic manager could not write notes: {res.output.strip()[-300:]}")


def _mentions(ws: Workspace, st: _State, ht: ModuleType, segment: str, located: list[tuple[int, Unit]],
              opts: dict) -> tuple[list[str], list[str]]:
    """Add the segment's lines to people/entity/topic notes; returns (names found, notes touched)."""
    speakers = {u.actor for _, u in located}
    names: list[str] = []
    touched: list[str] = []
    for n, u in located:
        if opts["entity_notes"]:
            note = _mention_note(ws, st, "people", u.actor, f"person ({u.actor}'s own turns)")
            note.add(ws, st, segment, n, u)
            touched.append(note.path)
            found = entities(u.text, speakers)
            if st.known:
                found += _known_in(st, u.text, found)
            _remember(st, found)
            for name in found:
                if name not in names:
                    names.append(name)
                note = _mention_note(ws, st, "entities", name, "named in the conversation")
                note.add(ws, st, segment, n, u)
                touched.append(note.path)
        if opts["topic_notes"]:
            by_stem = _topics_by_stem(ht)
            hits = {t for stem in ht.analyse(u.text)[1].split() for t in by_stem.get(stem, ())}
            for topic in (_topic_stems(ht) if hits else ()):
                if topic in hits:
                    note = _mention_note(ws, st, "topics", topic, f"topic: {topic}")
                    note.add(ws, st, segment, n, u)
                    touched.append(note.path)
    return names, list(dict.fromkeys(touched))


def manage(sandbox, workspace: Workspace, segment: str, units: list[Unit], skills: dict | None = None) -> dict:
    """Write the notes, INDEX.md and search index for a newly archived raw segment, through ``sandbox``."""
    t0 = time.perf_counter()
    opts = options(skills)
    ht = text_tools()
    ws = workspace
    seg_file = ws.resolve(segment)
    if not seg_file.is_file():
        raise WorkspaceError(f"{segment}: no such raw segment")
    raw_text = seg_file.read_text(encoding="utf-8")
    wanted = {u.id for u in units}
    located = [(n, u) for n, line in enumerate(raw_text.splitlines(), 1)
               if (u := parse_raw_line(line)) is not None and u.id in wanted]
    st = _state(ws)
    st.checked.clear()
    names, touched = _mentions(ws, st, ht, segment, located, opts)
    files: dict[str, str] = {}
    for rel in touched:
        files.update(st.mentions[rel].render())
    unit_list = [u for _, u in located]
    phrases = _key_phrases(ht, unit_list, names, int(opts["max_key_phrases"])) if unit_list else []
    if opts["session_notes"] and unit_list:
        seg_dir = segment.rsplit("/", 2)[-2]
        links = ["notes/timeline.md"] + [r for r in touched if "/entities/" in r][:20]
        files[f"{NOTES_DIR}/sessions/{seg_dir}.md"] = _session_note(segment, located, names, phrases, links, opts)
    if st.timeline is None or (opts["timeline"] and not _fresh(ws, st, f"{NOTES_DIR}/timeline.md")):
        st.timeline = _read_timeline(ws)
    if unit_list and not any(f" {segment} " in t for t in st.timeline):
        st.timeline.append(f"- {unit_list[0].time} {segment} ({len(unit_list)} units {unit_list[0].id} .. "
                           f"{unit_list[-1].id}): {', '.join(phrases[:8])}")
        st.timeline.sort()
    if opts["timeline"]:
        files[f"{NOTES_DIR}/timeline.md"] = render_note(
            "Timeline", None, {}, [], "# Timeline\n\nOne line per raw segment: time, file, units, key phrases.\n\n"
            + "\n".join(st.timeline))
    if st.counts is None:
        st.counts = {p.parent.name: set() for p in (ws.root / NOTES_DIR).glob("*/*.md")}
        for p in (ws.root / NOTES_DIR).glob("*/*.md"):
            st.counts[p.parent.name].add(p.name)
    for rel in files:
        parts = rel.split("/")
        if len(parts) == 3:
            st.counts.setdefault(parts[1], set()).add(parts[2])
    counts = {folder: len(names_) for folder, names_ in st.counts.items()}
    actors = sorted({m.title for r, m in st.mentions.items() if "/people/" in r} | {u.actor for u in unit_list})
    files[INDEX_FILE] = _index_md(counts, st.timeline, actors)
    shards = {f".horma/index/{ht.shard_name(segment)}": ht.raw_shard(segment, raw_text)}
    for rel, text in files.items():
        if rel.startswith(f"{NOTES_DIR}/"):
            shards[f".horma/index/{ht.shard_name(rel)}"] = ht.note_shard(rel, text, st.memo)
    if opts["track_state"]:
        files[f"{NOTES_DIR}/state.md"] = _state_note(st, segment, located, names)
    _write_through(sandbox, ws, {**files, **shards})
    for rel in files:
        if rel.startswith(f"{NOTES_DIR}/"):
            st.mtimes[rel] = _mtime(ws, rel)
    return {"segment": segment, "units": len(unit_list), "notes_written": sum(r.startswith(NOTES_DIR) for r in files),
            "entities": len(names), "commands": 1, "elapsed_ms": round((time.perf_counter() - t0) * 1000, 3)}
