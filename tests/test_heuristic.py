"""The zero-LLM manager and navigator, the sandbox helpers they share, flat baselines and the benchmark.

Everything runs for real: the manager writes notes and the search index on the
host, `hsearch`/`hindex`/`hwrite` run as the processes the sandbox would start,
and the benchmark script runs end to end on a small conversation written here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from horma.agents import mention_notes
from horma.agents.extraction import anchor_dates, entities, topics
from horma.agents.heuristic_manager import manage
from horma.agents.navigator import navigate
from horma.agents.stemming import stem
from horma.agents.trajectory import Trajectory, read_trajectory
from horma.bench.flat import FlatIndex, fill, render_turn, rrf
from horma.context import Context
from horma.core import text as ht
from horma.core.text import count_tokens
from horma.file_writes import file_sig
from horma.index import open_index
from horma.note import Note, parse_note
from horma.resources import CORE, SANDBOX_BIN
from horma.sandbox import View, check_backends, open_sandbox
from horma.workspace import Unit, Workspace, parse_raw_line

ROOT = Path(__file__).resolve().parent.parent

SESSIONS = [
    ("2023-05-08 13:56", [
        ("Ada", "Hey Bo! I adopted a cat named Pixel yesterday, she is tiny and grey."),
        ("Bo", "That's lovely! What made you choose a cat?"),
        ("Ada", "My apartment in Lisbon is small, and cats are fine on their own."),
        ("Bo", "I started pottery classes at the Clayhouse studio, my first bowl cracked."),
        ("Ada", "Ha, keep at it. I'm training for the Porto half marathon in June."),
    ]),
    ("2023-06-20 09:10", [
        ("Bo", "How did the race go?"),
        ("Ada", "I finished the half marathon in 1:58, my best time ever!"),
        ("Bo", "Amazing. My sister Clara visited last week and we went hiking."),
        ("Ada", "Where did you hike?"),
        ("Bo", "Along the coast near Sintra, the views were unreal."),
    ]),
    ("2023-07-02 18:30", [
        ("Ada", "Pixel learned to open the kitchen door, she is a menace."),
        ("Bo", "My pottery got better, I glazed a blue vase for Clara's birthday."),
        ("Ada", "You should sell them at the weekend market."),
    ]),
]


def units_of(n: int) -> list[Unit]:
    time, turns = SESSIONS[n]
    return [Unit(f"D{n + 1}:{i}", time, who, text) for i, (who, text) in enumerate(turns, 1)]


def ingest(root: Path, sessions: range | None = None) -> tuple[Workspace, list[dict]]:
    ws = Workspace.init(root)
    stats = []
    with ws.writer():
        for n in sessions if sessions is not None else range(len(SESSIONS)):
            seg = ws.archive(units_of(n), f"chat-{n + 1}", SESSIONS[n][0])
            stats.append(manage(ws, seg, units_of(n)))
    return ws, stats


@pytest.fixture()
def paged(monkeypatch) -> None:
    """Every note with more than one mention becomes a summary and monthly pages (the fixture is small)."""
    monkeypatch.setattr(mention_notes, "INLINE_MENTIONS", 1)


@pytest.fixture()
def ws(tmp_path, paged) -> Workspace:
    return ingest(tmp_path / "ws")[0]


def run_helper(name: str, *args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(SANDBOX_BIN / name), *args], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=30, env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)})


# -- text analysis ---------------------------------------------------------------
def test_porter_stemmer_reference_cases():
    """The manager's topic and key-phrase stems: Porter's 1980 algorithm, as FTS5's porter tokenizer."""
    cases = {"caresses": "caress", "ponies": "poni", "cats": "cat", "running": "run", "painted": "paint",
             "painting": "paint", "hopping": "hop", "relational": "relat", "generalization": "gener",
             "adoption": "adopt", "happy": "happi", "marathon": "marathon", "hiking": "hike", "holiday": "holidai"}
    assert {w: stem(w) for w in cases} == cases
    assert topics("We were painting and hiking; my daughter got married!") == ["family", "hobbies", "sports"]


def test_sandbox_analysis_without_re_matches_host():
    """hsearch runs without `re`; its fallback splitting must equal the compiled patterns exactly."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from horma.core import text as ht; "
        "assert ht._WORD is None; import json; "
        "print(json.dumps([[ht.words(t), ht.count_tokens(t)] for t in json.loads(sys.stdin.read())]))"
    )
    texts = ["Hey Mel's café_2 — 1:58!", "naïve 😀 x_y", "  ", "D3:7 | 2023-05-08 13:56 | Caroline: hi"]
    out = subprocess.run([sys.executable, "-S", "-E", "-c", code, str(CORE.parent.parent)], input=json.dumps(texts),
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [[ht.words(t), ht.count_tokens(t)] for t in texts]
    assert all(ht.count_tokens(t) == count_tokens(t) for t in texts)


def test_entities_and_relative_dates():
    assert entities("I went to Porto with my sister Clara and Ada.", {"Ada"}) == ["Porto", "Clara"]
    assert entities("Thanks Bo! Sure.", {"Bo"}) == []
    assert anchor_dates("I adopted her yesterday and race next month", "2023-05-08 13:56") == [
        "yesterday = 7 May 2023", "next month = June 2023"]


def test_render_note_round_trips_through_parse_note():
    """The one note renderer (Note.render) quotes every string, so nothing turns into another YAML type."""
    text = Note("notes/a.md", 'Ada: "quotes", colons: and ünïcode', "# Body\n- line", time="2023-05-08 13:56",
                sources=[{"path": "raw/x/units.log", "units": ["D1:1", "D1:2", "1:58", "no", "007"]}],
                links=["notes/timeline.md"]).render()
    note = parse_note("notes/a.md", text)
    assert note.title == 'Ada: "quotes", colons: and ünïcode'
    assert note.sources == [{"path": "raw/x/units.log", "units": ["D1:1", "D1:2", "1:58", "no", "007"]}]
    assert note.links == ["notes/timeline.md"] and note.time == "2023-05-08 13:56"
    odd = "tab\t nl\n c1\x85 sep\u2028 del\x7f # &anchor *alias"
    back = parse_note("notes/b.md", Note("notes/b.md", odd, "", extra={"tags": ["x", 1]}).render())
    assert back.title == odd and back.extra == {"tags": ["x", 1]} and back.sources == [] and back.links == []
    for title in ("no", "Null", "1:58", "2023", "trailing ", "Pixel, 2023-05", "Jun's café", "-x", "a: b", "x #y"):
        assert parse_note("notes/c.md", Note("notes/c.md", title, "").render()).title == title
    assert "title: Caroline\n" in Note("notes/p.md", "Caroline", "").render()  # plain where nothing can misread


# -- the manager -----------------------------------------------------------------
def test_manager_writes_linked_notes_and_index(ws):
    raw_before = {p: p.read_bytes() for p in (ws.root / "raw").rglob("*") if p.is_file()}
    notes = {ws.rel(p) for p in ws.note_files()}
    sessions = sorted(n for n in notes if n.startswith("notes/sessions/"))
    assert len(sessions) == 3 and "notes/timeline.md" in notes
    s1 = ws.read_note(sessions[0])
    seg = s1.sources[0]["path"]
    assert s1.sources[0]["units"] == [f"D1:{i}" for i in range(1, 6)]
    assert "yesterday = 7 May 2023" in s1.body and "participants: Ada, Bo" in s1.body
    # only a turn that needs more than its raw line gets a line (here: the date its "yesterday" means);
    # a bare pointer would repeat the raw line's id and speaker, and the words stay in raw/
    assert "- D1:1 (line 1) Ada (yesterday = 7 May 2023)\n" in s1.body
    assert "(line 4)" not in s1.body and "pottery" not in s1.body
    # a person's page: one line per session citing all their lines in it, the segment's path once
    ada = ws.read_note("notes/people/ada/2023-05.md")
    ada_lines = [x for x in ada.body.splitlines() if x.startswith("- 2023-05-08")]
    assert ada_lines == [f"- 2023-05-08 ({seg}:1,3,5) Ada"]
    assert ada.sources[0] == {"path": seg, "units": ["D1:1", "D1:3", "D1:5"]}
    pixel = ws.read_note("notes/entities/pixel.md")
    assert [ws.rel(ws.resolve(link)) for link in pixel.links] == ["notes/entities/pixel/2023-05.md",
                                                                  "notes/entities/pixel/2023-07.md"]
    may = ws.read_note("notes/entities/pixel/2023-05.md")
    assert may.sources == [{"path": seg, "units": ["D1:1"]}]
    assert f"- 2023-05-08 ({seg}:1) Ada\n" in may.body  # a pointer to the line: its words stay in raw/
    assert "adopted" not in may.body
    clara = ws.read_note("notes/entities/clara/2023-06.md")
    assert clara.sources[0]["units"] == ["D2:3"]
    # a name of one session gets no note (nothing to link): the session note names it, .horma/ keeps
    # its mentions so that its note, when a second session names it, lists both sessions
    assert not (ws.root / "notes/entities/lisbon.md").exists() and "names mentioned: Pixel, Lisbon" in s1.body
    once = [json.loads(x) for x in (ws.meta / "names-once.jsonl").read_text().splitlines()]
    assert {"name": "Lisbon", "month": "2023-05", "seg": seg, "uid": "D1:3", "uids": ["D1:3"], "day": "2023-05-08",
            "line": f"- 2023-05-08 ({seg}:3) Ada"} in once
    # every id a note cites exists, and its raw line is where the note says
    for rel in notes:
        note = ws.read_note(rel)
        for src in note.sources:
            lines = ws.resolve(src["path"]).read_text().splitlines()
            assert set(src["units"]) <= {parse_raw_line(x).id for x in lines}
    assert "hsearch" in (ws.root / "INDEX.md").read_text() and "`notes/sessions/` 3 note(s)" in (
        ws.root / "INDEX.md").read_text()
    timeline = ws.read_note("notes/timeline.md").body
    assert timeline.index("2023-05-08") < timeline.index("2023-06-20") < timeline.index("2023-07-02")
    with open_index(ws) as idx:
        segments = [r[0] for r in idx.conn.execute("SELECT path FROM segments")]
        indexed = idx.indexed_notes()
        lines = idx.conn.execute("SELECT l.text, (SELECT group_concat(d.day) FROM unit_dates d WHERE d.line = l.id) "
                                 "FROM note_lines l JOIN notes n ON n.id = l.note WHERE n.path = ?",
                                 (sessions[0],)).fetchall()
    # of the pages the manager regenerates, the index holds the lines that date a unit, and nothing else
    assert len(segments) == 3 and sessions[0] in indexed and indexed <= notes
    assert lines == [("- D1:1 (line 1) Ada (yesterday = 7 May 2023)", "2023-05-07")]
    assert sorted(p.name for p in (ws.meta / "index").iterdir()) == ["search.db"]  # no payload or temp file
    assert not [p for p in ws.root.rglob("*.tmp")]
    assert raw_before == {p: p.read_bytes() for p in (ws.root / "raw").rglob("*") if p.is_file()}


def test_manager_resumes_from_notes_on_disk(tmp_path, paged):
    """A new process (fresh state) continues the notes the last one wrote instead of starting over."""
    ingest(tmp_path / "ws", range(0, 2))
    ws, stats = ingest(tmp_path / "ws", range(2, 3))  # a new Workspace object: a new notebook
    assert stats[0]["units"] == 3 and stats[0]["files_written"] == 13  # no keyword topic pages by default
    summary = ws.read_note("notes/entities/pixel.md")
    assert "[2023-05](pixel/2023-05.md), [2023-07](pixel/2023-07.md)" in summary.body
    page = ws.read_note("notes/entities/pixel/2023-07.md").body
    assert summary.time == "2023-05-08 .. 2023-07" and "1 mention(s)" in page
    people = ws.read_note("notes/people/bo.md").body
    assert "[2023-05]" in people and "[2023-06]" in people and "[2023-07]" in people


def test_a_small_note_is_one_file_across_months_until_it_grows(tmp_path, monkeypatch):
    """A name mentioned a few times in several months is one file, not a summary and a page per month;
    past INLINE_MENTIONS it splits into monthly pages, each with the sources of its own lines."""
    ws, _ = ingest(tmp_path / "ws", range(0, 2))
    bo = ws.read_note("notes/people/bo.md")
    assert not (ws.root / "notes/people/bo").exists()
    assert [ln[:12] for ln in bo.body.splitlines() if ln.startswith("- ")] == ["- 2023-05-08", "- 2023-06-20"]
    assert [s["units"] for s in bo.sources] == [["D1:2", "D1:4"], ["D2:1", "D2:3", "D2:5"]]
    monkeypatch.setattr(mention_notes, "INLINE_MENTIONS", 5)  # Bo's sixth turn comes next: the note is paged
    ws, _ = ingest(tmp_path / "ws", range(2, 3))
    pages = {p.name: ws.read_note(ws.rel(p)) for p in (ws.root / "notes/people/bo").iterdir()}
    assert sorted(pages) == ["2023-05.md", "2023-06.md", "2023-07.md"]
    assert [s["units"] for s in pages["2023-06.md"].sources] == [["D2:1", "D2:3", "D2:5"]]
    assert "3 mention(s)" in pages["2023-06.md"].body and "2023-05-08" not in pages["2023-06.md"].body
    assert "[2023-05](bo/2023-05.md), [2023-06](bo/2023-06.md), [2023-07](bo/2023-07.md)" in ws.read_note(
        "notes/people/bo.md").body


def test_a_name_gets_its_note_when_a_second_session_names_it(tmp_path):
    """Within one session the session note's names suffice; the note, once due, cites every mention."""
    ws = Workspace.init(tmp_path / "ws")
    first = [Unit("A:1", "2023-03-01 10:00", "Ada", "My friend Nadia lent me her bike."),
             Unit("A:2", "2023-03-01 10:00", "Bo", "Nice."),
             Unit("A:3", "2023-03-01 10:00", "Ada", "And then Nadia fixed the brakes.")]
    second = [Unit("B:1", "2023-04-02 10:00", "Bo", "Did you give Nadia her bike back?")]
    with ws.writer():
        seg_a = ws.archive(first, "a", first[0].time)
        manage(ws, seg_a, first)
        assert not (ws.root / "notes/entities/nadia.md").exists()
        seg_b = ws.archive(second, "b", second[0].time)
        manage(ws, seg_b, second)
    note = ws.read_note("notes/entities/nadia.md")
    assert [ln for ln in note.body.splitlines() if ln.startswith("- ")] == [
        f"- 2023-03-01 ({seg_a}:1,3) Ada", f"- 2023-04-02 ({seg_b}:1) Bo"]
    assert note.sources == [{"path": seg_a, "units": ["A:1", "A:3"]}, {"path": seg_b, "units": ["B:1"]}]


def test_manager_options_from_skills(tmp_path):
    ws = Workspace.init(tmp_path / "ws")
    with ws.writer():
        seg = ws.archive(units_of(0), "chat-1", SESSIONS[0][0])
        manage(ws, seg, units_of(0), skills={"entity_notes": False, "topic_notes": False, "track_state": True,
                                                   "verbatim_quotes": True, "unknown_option": 1})
    notes = {ws.rel(p) for p in ws.note_files()}
    assert not [n for n in notes if "/entities/" in n or "/topics/" in n or "/people/" in n]
    state = ws.read_note("notes/state.md").body
    assert "- Ada: 2023-05-08 D1:5 (" in state and "- Bo: 2023-05-08 D1:4 (" in state
    body = ws.read_note(next(n for n in notes if "/sessions/" in n)).body
    assert "My apartment in Lisbon is small, and cats are fine on their own." in body


def test_long_timelines_are_paged_by_year(tmp_path, monkeypatch):
    """Past TIMELINE_INLINE segments a segment rewrites one year's page, not the whole history."""
    import horma.agents.timeline_note as timeline_note

    monkeypatch.setattr(timeline_note, "TIMELINE_INLINE", 2)
    ws, _ = ingest(tmp_path / "ws")
    summary = ws.read_note("notes/timeline.md")
    assert "- [2023](timeline/2023.md): 3 segment(s)" in summary.body and summary.links == ["notes/timeline/2023.md"]
    page = ws.read_note("notes/timeline/2023.md").body
    assert page.index("2023-05-08") < page.index("2023-06-20") < page.index("2023-07-02")
    later = [Unit("D4:1", "2024-01-05 10:00", "Ada", "Pixel turned one today.")]
    before = file_sig(ws.root / "notes/timeline/2023.md")
    ws = Workspace(ws.root)  # a new notebook: it reads the paged timeline back
    with ws.writer():
        manage(ws, ws.archive(later, "chat-4", later[0].time), later)
    assert file_sig(ws.root / "notes/timeline/2023.md") == before  # the 2023 page was left alone
    assert "D4:1" in ws.read_note("notes/timeline/2024.md").body
    summary = ws.read_note("notes/timeline.md")
    assert "4 raw segments from 2023-05-08 .. 2024-01-05" in summary.body and "[2024]" in summary.body
    assert "4 session(s), 2023-05-08 .. 2024-01-05" in (ws.root / "INDEX.md").read_text()


# -- the helpers -----------------------------------------------------------------
def test_hsearch_ranks_and_pages(ws):
    out = run_helper("hsearch", "-n", "3", "--notes", "0", "--", "when was the half marathon race", cwd=ws.root)
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    path, _line, raw = first.split(":", 2)
    assert path.startswith("raw/") and parse_raw_line(raw).id == "D2:2"
    assert len(out.stdout.splitlines()) == 3
    page = run_helper("hsearch", "--max-chars", "200", "--notes", "0", "pottery", cwd=ws.root / "notes")
    assert page.stdout.splitlines()[-1].startswith("[more: hsearch --skip ")
    notes = run_helper("hsearch", "-n", "1", "--notes", "2", "what did Ada say yesterday", cwd=ws.root).stdout
    assert [x.split(":")[0].split("/")[0] for x in notes.splitlines()] == ["raw", "notes", "notes"], notes
    assert notes.splitlines()[1].endswith("- D1:1 (line 1) Ada (yesterday = 7 May 2023)"), notes  # the best dating line
    assert run_helper("hsearch", "zzzqqq", cwd=ws.root).returncode == 1
    bad = run_helper("hsearch", "-n", "x", "cat", cwd=ws.root)
    assert bad.returncode == 2 and "-n needs a non-negative whole number" in bad.stderr
    assert "no query given" in run_helper("hsearch", "  ", cwd=ws.root).stderr


def index_dump(ws: Workspace) -> dict[str, set]:
    """The index's rows by content (paths, line numbers, texts, cited unit ids), not by row id."""
    with open_index(ws) as idx:
        q = idx.conn.execute
        return {
            "segments": set(q("SELECT path, size, lines FROM segments")),
            "units": set(q("SELECT s.path, u.lineno, u.offset, u.uid, u.actor, u.time, u.cost "
                           "FROM units u JOIN segments s ON s.id = u.seg")),
            "notes": set(q("SELECT path, kind, title FROM notes")),
            "lines": set(q("SELECT n.path, l.lineno, l.text FROM note_lines l JOIN notes n ON n.id = l.note")),
            "cites": set(q("SELECT n.path, l.lineno, u.uid FROM cites c JOIN note_lines l ON l.id = c.line "
                           "JOIN notes n ON n.id = l.note JOIN units u ON u.id = c.unit")),
        }


def test_hindex_rebuilds_what_the_manager_wrote(ws):
    """The manager's incremental index equals a rebuild from the files; a dating line routes to its unit."""
    written = index_dump(ws)
    assert any(p.startswith("notes/sessions/") and uid == "D1:1" for p, _, uid in written["cites"])  # (line 1)
    assert not {p for p, _, _ in written["cites"]} & {"notes/entities/pixel/2023-05.md", "notes/people/ada/2023-05.md"}
    (ws.meta / "index" / "search.db").unlink()
    out = run_helper("hsearch", "cat", cwd=ws.root)
    assert out.returncode == 2 and "no search index" in out.stderr
    done = run_helper("hindex", cwd=ws.root)
    assert done.returncode == 0 and "indexed 3 new raw segment(s)" in done.stdout
    assert index_dump(ws) == written
    again = run_helper("hindex", cwd=ws.root)
    assert "indexed 0 new raw segment(s)" in again.stdout


def test_hwrite_is_atomic_and_keeps_out_of_raw(tmp_path):
    (tmp_path / "raw").mkdir()
    ok = run_helper("hwrite", cwd=tmp_path, stdin="@hwrite 6 notes/a/b.md\nhello\n@hwrite 0 notes/empty.md\n")
    assert ok.returncode == 0 and (tmp_path / "notes/a/b.md").read_text() == "hello\n"
    assert (tmp_path / "notes/empty.md").read_text() == ""
    for rel in ("raw/x.log", "../escape.md", ".horma/workspace.yaml"):
        bad = run_helper("hwrite", cwd=tmp_path, stdin=f"@hwrite 1 {rel}\nx")
        assert bad.returncode == 2 and rel in bad.stderr
    assert not (tmp_path / "raw/x.log").exists() and not (tmp_path.parent / "escape.md").exists()
    short = run_helper("hwrite", cwd=tmp_path, stdin="@hwrite 99 notes/c.md\nabc")
    assert short.returncode == 2 and "ends 96 characters early" in short.stderr
    assert not (tmp_path / "notes/c.md").exists()
    (tmp_path / "p1").write_text("@hwrite 2 notes/d.md\nok")
    from_file = run_helper("hwrite", "p1", cwd=tmp_path)
    assert from_file.returncode == 0 and (tmp_path / "notes/d.md").read_text() == "ok"
    index = run_helper("hwrite", cwd=tmp_path, stdin="@hwrite 1 .horma/index/x\nx")
    assert index.returncode == 2 and "raw/ and .horma/ are not for notes" in index.stderr


def test_hwrite_refuses_input_that_is_not_utf8_and_leaves_no_file(tmp_path):
    (tmp_path / "p1").write_bytes(b"@hwrite 2 notes/a.md\n\xff\xfe")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    for args, payload in (([], b"@hwrite 2 notes/a.md\n\xff\xfe"), (["p1"], None)):
        bad = subprocess.run([str(SANDBOX_BIN / "hwrite"), *args], cwd=tmp_path, input=payload, capture_output=True,
                             timeout=30, env=env)
        assert bad.returncode == 2 and bad.stderr.decode().count("\n") == 1, bad.stderr  # one line, no traceback
        assert b"not UTF-8 text (byte " in bad.stderr
        assert sorted(p.name for p in tmp_path.rglob("*")) == ["p1"]  # no note and no temp file


def test_hindex_crash_on_a_hand_edited_index_is_one_line(ws):
    with open_index(ws) as idx:
        idx.conn.execute("UPDATE segments SET size = 'abc'")  # a value no horma writes
        idx.conn.commit()
    out = run_helper("hindex", cwd=ws.root)
    assert out.returncode == 1 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith("hindex failed (") and "horma index --rebuild" in out.stderr


# -- the navigator ---------------------------------------------------------------
def recall(ws: Workspace, query: str, budget: int, backend: str = "local") -> tuple[Context, list[dict]]:
    with open_sandbox(ws.root, backend, View.READ) as box:
        ctx = Context(query, budget, ws)
        traj = Trajectory(ws.trajectories, "retriever", query, policy="heuristic")
        navigate(box, ctx, traj)
        traj.end("done")
    return ctx, read_trajectory(traj.path)


def test_navigator_selects_evidence_verbatim_within_budget(ws):
    ctx, records = recall(ws, "How long did Ada take to finish the half marathon?", 60)
    assert "D2:2 Ada: I finished the half marathon in 1:58, my best time ever!" in ctx.text
    assert "[20 June 2023]" in ctx.text and ctx.tokens <= 60 and "D2:2" in ctx.refs
    steps = [r for r in records if r["type"] == "step"]
    assert steps[0]["action"] == "bash" and steps[0]["args"]["command"].startswith("hsearch ")
    assert steps[0]["exit_code"] == 0  # the navigator reads `hsearch --refs` rows: path:line:tokens
    assert steps[0]["observation"].startswith("raw/2023-06-20T09-10__chat-2/units.log:2:")  # D2:2 first
    selects = [s for s in steps if s["action"] == "select"]
    assert selects and all(set(s["args"]) == {"path", "start", "end"} for s in selects)
    assert all(s["observation"].startswith("selected ") for s in selects)
    assert steps[-1]["action"] == "done"


def test_navigator_fills_large_budget_and_finds_adjacent_answer(ws):
    ctx, _ = recall(ws, "Where did Bo go hiking with Clara?", 1000)
    assert "Along the coast near Sintra" in ctx.text  # the reply after the question turn
    small, _ = recall(ws, "pottery", 25)
    assert 0 < small.tokens <= 25


def test_navigator_falls_back_to_grep_without_index(ws):
    for p in (ws.meta / "index").iterdir():
        p.unlink()
    ctx, records = recall(ws, "Which studio does Bo take pottery classes at?", 200)
    assert "Clayhouse studio" in ctx.text
    commands = [r["args"]["command"] for r in records if r.get("action") == "bash"]
    assert commands[0].startswith("hsearch") and commands[1].startswith("grep -rniE")


@pytest.mark.parametrize("backend", ["bwrap", "docker"])
def test_isolated_backends_run_manager_and_navigator(tmp_path, backend):
    status = {s.name: s for s in check_backends()}[backend]
    if not status.available:
        pytest.skip(f"{backend} not available here: {status.reason}")
    ws = Workspace.init(tmp_path / "ws")
    with ws.writer():
        seg = ws.archive(units_of(1), "chat-2", SESSIONS[1][0])
        manage(ws, seg, units_of(1))
    assert ws.read_note("notes/people/bo.md").title == "Bo"
    ctx, _ = recall(ws, "Where did Bo hike?", 100, backend)
    assert "Along the coast near Sintra" in ctx.text


# -- flat baselines --------------------------------------------------------------
def test_flat_bm25_fill_and_fusion():
    units = [u for n in range(3) for u in units_of(n)]
    index = FlatIndex(units, ["bm25"])
    order = index.rank("pottery vase for Clara", "bm25")
    assert units[order[0]].id == "D3:2"
    ctx = index.context("pottery vase for Clara", "bm25", 40)
    assert ctx.tokens <= 40 and "D3:2" in ctx.refs and ctx.tokens == count_tokens(ctx.text)
    assert render_turn(units[0]).startswith("[8 May 2023] Ada: Hey Bo!")
    assert fill(units, [0, 1], 5).refs == []
    assert rrf([0, 1, 2], [2, 1, 0]) == [0, 2, 1]  # consistent middling beats split extremes only by a hair
    assert rrf([0, 1, 2], [1, 0, 2]) == [0, 1, 2] and rrf([3, 1], [1, 3]) == [1, 3]


def test_flat_dense_embeddings_are_kept_for_the_same_turns_only(tmp_path):
    pytest.importorskip("sentence_transformers")
    units = [u for n in range(3) for u in units_of(n)]
    cache = tmp_path / "flat-dense.npz"
    first = FlatIndex(units, ["dense", "hybrid"], cache=cache)
    assert cache.is_file()
    kept = cache.stat().st_mtime_ns
    again = FlatIndex(units, ["dense"], cache=cache)  # read, not embedded anew
    assert cache.stat().st_mtime_ns == kept
    assert again.rank("a pottery vase", "dense") == first.rank("a pottery vase", "dense")
    other = FlatIndex(units[:-1], ["dense"], cache=cache)  # other turns: embedded, and kept in their place
    assert len(other.rank("a pottery vase", "dense")) == len(units) - 1 and cache.stat().st_mtime_ns != kept


# -- the benchmark ---------------------------------------------------------------
def test_benchmark_script_end_to_end(tmp_path):
    sample = {"sample_id": "conv-t", "conversation": {"speaker_a": "Ada", "speaker_b": "Bo"}, "qa": [
        {"question": "How fast did Ada run the half marathon?", "answer": "1:58", "evidence": ["D2:2"], "category": 4},
        {"question": "Where did Bo hike?", "answer": "near Sintra", "evidence": ["D2:5"], "category": 4},
        {"question": "When did Ada adopt Pixel?", "answer": "7 May 2023", "evidence": ["D1:1"], "category": 2},
        {"question": "What did Ada glaze?", "adversarial_answer": "a vase", "evidence": ["D3:2"], "category": 5},
        {"question": "Who is older?", "answer": "?", "evidence": [], "category": 1}]}
    for n, (time, turns) in enumerate(SESSIONS, 1):
        d, t = time.split(" ")
        hour, minute = map(int, t.split(":"))
        import datetime as dt

        stamp = dt.datetime.strptime(f"{d} {hour}:{minute}", "%Y-%m-%d %H:%M")
        sample["conversation"][f"session_{n}_date_time"] = stamp.strftime("%-I:%M %p on %-d %B, %Y").lower()
        sample["conversation"][f"session_{n}"] = [
            {"speaker": who, "dia_id": f"D{n}:{i}", "text": text} for i, (who, text) in enumerate(turns, 1)]
    data = tmp_path / "mini.json"
    data.write_text(json.dumps([sample]))
    out = subprocess.run([sys.executable, str(ROOT / "bench/retrieval.py"), "--data", str(data), "--budget", "40,300",
                          "--methods", "horma,bm25", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["questions"] == 4 and report["ingest"]["turns"] == 13
    rows = {(r["method"], r["budget"]): r for r in report["results"]}
    assert rows["horma", 300]["evidence_recall"] == 1.0 and rows["horma", 300]["mean_tokens"] <= 300
    assert rows["horma", 40]["mean_tokens"] <= 40 and rows["bm25", 40]["mean_tokens"] <= 40
    assert 0 < rows["horma", 300]["jaccard"] < 1 and rows["horma", 300]["p50_ms"] > 0
    bad = subprocess.run([sys.executable, str(ROOT / "bench/retrieval.py"), "--data", str(tmp_path / "nope.json")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "no such file" in bad.stderr


def test_entity_names_fold_possessives_leading_the_and_weekday_plurals():
    text = ("We sold out. Jun's bowls went fast, and The Riverside Half Marathon is on Wednesdays near "
            "Marguerite's bakery.")
    assert entities(text, {"Jun"}) == ["Riverside Half Marathon", "Marguerite"]
