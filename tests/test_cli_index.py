"""`horma index WS [--rebuild] [--json]` and the hsearch command-line contract, run as a user runs them."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_index import HINDEX, HSEARCH, archive, note, run, units, write

from horma.core import index as HI
from horma.index import index_folder, open_index
from horma.workspace import Workspace

HORMA = Path(sys.executable).with_name("horma")
DB = HI.DB_NAME

# one word ("quokka") in turns of many lengths, so budgets and pages have something to choose between
WORDS = ["sunny", "harbour", "market", "lantern", "violin", "orchard", "meadow", "glacier", "canyon", "pebble"]


def quokka_texts(n: int, shift: int) -> list[str]:
    return [f"the quokka {' '.join(WORDS[(i + shift) % len(WORDS)] for _ in range(1 + (i * 7 + shift) % 23))}"
            for i in range(n)]


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    ws = Workspace.init(tmp_path / "ws")
    rels = [archive(ws, units(f"Q{k}", [*quokka_texts(12, k), "an unrelated turn about tea"],
                              day=f"2023-03-{10 + k:02d}"), f"quokka-{k}") for k in range(4)]
    seg0 = rels[0].split("/")[1]
    write(ws, "notes/trips/quokka.md", note("Quokka", [rels[0]], [
        "- the quokka smiled at the lantern (line 2)", f"- quokka by the violin (raw/{seg0}/units.log:3)",
        "- a quokka census (line 4)"]))
    write(ws, "notes/friends/ann.md", note("Ann", [rels[1]], ["- saw a quokka near the orchard (line 5)"]))
    write(ws, "notes/drinks/tea.md", note("Tea", [rels[2]], ["- tea at the harbour (line 13)"]))
    return ws


def horma(*args) -> subprocess.CompletedProcess:
    return run([HORMA, *args], cwd=Path.cwd())


def hsearch(ws: Workspace, *args, cwd: Path | None = None):
    return run([HSEARCH, *args], cwd=cwd or ws.root)


def rows(out: str) -> list[str]:
    return out.splitlines()


def one_error_line(r, code: int, *needles: str) -> str:
    assert r.returncode == code, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == "", r.stdout
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def index_json(ws: Workspace, *flags: str) -> dict:
    r = horma("index", ws.root, "--json", *flags)
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 1, r.stdout
    return json.loads(r.stdout)


def ranking(ws: Workspace, query: str) -> list[tuple[str, int, str]]:
    with open_index(ws, readonly=True) as s:
        return [(h.path, h.lineno, h.uid) for h in s.rank(query)]


# -- horma index -------------------------------------------------------------------------------
def test_index_json_counts_then_only_changes(ws: Workspace):
    out = index_json(ws)
    assert set(out) == {"segments", "notes", "removed", "embedded", "rebuilt", "index_bytes", "seconds"}
    assert (out["segments"], out["notes"], out["removed"], out["rebuilt"]) == (4, 3, 0, False)
    assert out["embedded"] == len(ws.unit_ids()) > 0  # every unit gets its vector
    assert out["index_bytes"] == (index_folder(ws) / DB).stat().st_size > 0
    again = index_json(ws)
    assert (again["segments"], again["notes"], again["removed"], again["embedded"]) == (0, 3, 0, 0)
    (ws.root / "notes/drinks/tea.md").unlink()
    archive(ws, units("Q9", ["a late quokka"]), "late")
    third = index_json(ws)
    assert (third["segments"], third["notes"], third["removed"], third["embedded"]) == (1, 2, 1, 1)
    full = index_json(ws, "--rebuild")
    assert (full["segments"], full["notes"], full["removed"], full["rebuilt"]) == (5, 2, 0, True)


def test_index_plain_output_is_one_line(ws: Workspace):
    r = horma("index", ws.root, "--rebuild")
    assert r.returncode == 0, r.stderr
    line = " ".join(r.stdout.split())
    assert line.startswith("rebuilt ") and "4 raw segments indexed, 3 notes, 0 deleted notes dropped" in line


def test_rebuild_after_deleting_the_index_ranks_the_same(ws: Workspace):
    index_json(ws)
    q = "quokka lantern violin"
    before = ranking(ws, q)
    printed = hsearch(ws, "-n", "0", "--notes", "5", q)
    assert printed.returncode == 0 and len(rows(printed.stdout)) > 20
    (index_folder(ws) / DB).unlink()
    one_error_line(hsearch(ws, q), 2, "hsearch: no search index", "hindex", "--rebuild")
    out = index_json(ws, "--rebuild")
    assert (out["segments"], out["notes"]) == (4, 3)
    assert ranking(ws, q) == before
    assert hsearch(ws, "-n", "0", "--notes", "5", q).stdout == printed.stdout


def test_index_of_a_missing_workspace_is_one_error(tmp_path: Path):
    line = one_error_line(horma("index", tmp_path / "nowhere"), 4, "error:", "not a horma workspace")
    assert str(tmp_path / "nowhere") in line
    r = horma("index", tmp_path / "nowhere", "--rebuild", "--json")
    assert r.returncode == 4 and r.stderr == "" and json.loads(r.stdout)["error"]["code"] == "workspace", r


def damage(db: Path, how: str) -> None:
    if how == "garbage":
        db.write_bytes(b"this is not a database at all\n" * 300)
    elif how == "pages":  # a valid header, garbage where the tables are
        data = bytearray(db.read_bytes())
        page = int.from_bytes(data[16:18], "big")
        for i in range(page, len(data), 97):
            data[i] = (data[i] * 31 + 7) % 256
        db.write_bytes(bytes(data))
    else:  # an index written by another version of horma
        conn = sqlite3.connect(db)
        conn.execute("UPDATE meta SET value='0' WHERE key='version'")
        conn.commit()
        conn.close()


def test_a_value_the_ranking_cannot_use_is_one_error_line_not_no_matches(ws: Workspace):
    index_json(ws)
    assert hsearch(ws, "--budget", "300", "quokka lantern").returncode == 0
    conn = sqlite3.connect(index_folder(ws) / DB)
    conn.execute("UPDATE units SET cost = 'many'")  # a hand edit of the file: a cost no budget can add up
    conn.commit()
    conn.close()
    one_error_line(hsearch(ws, "--budget", "300", "quokka lantern"), 2, "hsearch: search failed (TypeError",
                   "horma index --rebuild")


@pytest.mark.parametrize("how", ["garbage", "pages", "version"])
def test_a_damaged_index_is_one_error_line_and_rebuild_repairs_it(ws: Workspace, how: str):
    index_json(ws)
    q = "quokka lantern"
    printed = hsearch(ws, "-n", "0", "--notes", "3", q)
    assert printed.returncode == 0
    db = index_folder(ws) / DB
    damage(db, how)

    r = hsearch(ws, q)
    if how == "garbage":
        one_error_line(r, 2, "hsearch: search index unreadable", "horma index --rebuild")
    elif how == "pages":
        assert "Traceback" not in r.stderr and len(r.stderr.splitlines()) <= 1, r.stderr
    r = horma("index", ws.root)
    if how != "pages":  # damaged pages the update does not touch may go unnoticed until --rebuild
        one_error_line(r, 4, "error:", "--rebuild")
    assert "Traceback" not in r.stderr
    r = run([HINDEX], cwd=ws.root)
    if how == "garbage":
        one_error_line(r, 1, "hindex: cannot update the index", "file is not a database (run horma index --rebuild)")

    out = index_json(ws, "--rebuild")
    assert (out["segments"], out["notes"], out["removed"]) == (4, 3, 0)
    conn = HI.connect(str(index_folder(ws)))
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert conn.execute("SELECT value FROM meta WHERE key='version'").fetchone() == (HI.SCHEMA_VERSION,)
    conn.close()
    assert sorted(p.name for p in index_folder(ws).iterdir()) == [DB]
    assert hsearch(ws, "-n", "0", "--notes", "3", q).stdout == printed.stdout


# -- hsearch's command-line contract ----------------------------------------------------------
@pytest.fixture
def indexed(ws: Workspace) -> Workspace:
    index_json(ws)
    return ws


def costs(ws: Workspace) -> dict[str, tuple[int, str]]:
    """"path:line" -> (context cost, segment path) of every unit."""
    with open_index(ws, readonly=True) as s:
        return {f"{p}:{n}": (c, p) for p, n, c in s.conn.execute(
            "SELECT s.path, u.lineno, u.cost FROM units u JOIN segments s ON s.id = u.seg")}


def key(row: str) -> str:
    path, line, _ = row.split(":", 2)
    return f"{path}:{line}"


def fit(full: list[str], cost: dict, budget: int, header: int = 5, min_room: int = 8) -> list[str]:
    """What a context of ``budget`` tokens takes from a ranked list: each row that fits, a segment's
    first row paying for its date header, until less room is left than any turn needs."""
    out, used, segs = [], 0, set()
    for row in full:
        c, seg = cost[key(row)]
        c += 0 if seg in segs else header
        if used + c > budget:
            if budget - used < min_room:
                break
            continue
        used += c
        segs.add(seg)
        out.append(row)
    return out


def test_budget_lists_the_rows_that_fit(indexed: Workspace):
    q = "quokka"
    full = rows(hsearch(indexed, "-n", "0", "--notes", "0", q).stdout)
    assert len({key(x) for x in full}) == len(full) >= 48
    assert sum("quokka" in x.split(" | ", 2)[2] for x in full) == 48
    assert all(x.startswith("raw/") for x in full)  # no note lines
    cost = costs(indexed)
    skipped_some = False
    for budget in range(8, 420, 11):
        want = fit(full, cost, budget)
        r = hsearch(indexed, "-n", "0", "--notes", "0", "--budget", str(budget), q)
        got = rows(r.stdout) if r.returncode == 0 else []
        assert got == want, budget
        assert r.returncode == (0 if want else 1)
        assert sum(cost[key(x)][0] for x in got) + 5 * len({cost[key(x)][1] for x in got}) <= budget
        skipped_some |= bool(want) and want != full[:len(want)]
    assert skipped_some  # some budget skipped a long row for a shorter one further down
    r = hsearch(indexed, "-n", "2", "--notes", "0", "--budget", "10000", q)
    assert rows(r.stdout) == full[:2]


def test_max_chars_pages_through_the_whole_list(indexed: Workspace):
    q = "quokka harbour"
    full = rows(hsearch(indexed, "-n", "0", "--notes", "0", q).stdout)
    assert len(full) > 30
    limit = 600
    pages, skip = [], 0
    while True:
        args = ["-n", "0", "--notes", "0", "--max-chars", str(limit)] + (["--skip", str(skip)] if skip else [])
        out = rows(hsearch(indexed, *args, q).stdout)
        more = out[-1] if out[-1].startswith("[more:") else None
        page = out[:-1] if more else out
        assert page and page == full[skip:skip + len(page)]
        assert sum(len(x) + 1 for x in page) <= limit
        pages.append(page)
        if more is None:
            break
        assert sum(len(x) + 1 for x in full[skip:skip + len(page) + 1]) > limit  # the next row did not fit
        skip += len(page)
        assert more == f"[more: hsearch --skip {skip} ...]"
    assert len(pages) > 2
    assert [x for p in pages for x in p] == full
    one_row = rows(hsearch(indexed, "-n", "0", "--notes", "0", "--max-chars", "5", q).stdout)
    assert one_row == [full[0], "[more: hsearch --skip 1 ...]"]  # a page shows at least one row


def test_notes_appends_the_best_note_lines(indexed: Workspace):
    q = "quokka lantern"
    with open_index(indexed, readonly=True) as s:
        best = [f"{p}:{n}:{t}" for p, n, t in s.note_lines(q, 2)]
    assert len(best) == 2 and all(b.startswith("notes/") for b in best)
    raw = rows(hsearch(indexed, "-n", "3", "--notes", "0", q).stdout)
    assert len(raw) == 3 and all(r.startswith("raw/") for r in raw)
    assert rows(hsearch(indexed, "-n", "3", "--notes", "2", q).stdout) == raw + best
    default = rows(hsearch(indexed, "-n", "3", q).stdout)
    assert default[:3] == raw and len(default) == 3 + 4  # --notes 5 by default; four note lines match
    assert rows(hsearch(indexed, "--notes", "1", "--layers", "none", "-n", "3", q).stdout) == raw + best[:1]


def test_bad_arguments_and_no_matches(indexed: Workspace):
    one_error_line(hsearch(indexed, "--layers", "bogus", "quokka"), 2, "hsearch: unknown layer 'bogus'")
    one_error_line(hsearch(indexed, "--layers", "dates,bogus", "quokka"), 2, "unknown layer 'bogus'")
    one_error_line(hsearch(indexed), 2, "hsearch: no query given")
    one_error_line(hsearch(indexed, "-n", "5"), 2, "hsearch: no query given")
    one_error_line(hsearch(indexed, "-n", "five", "quokka"), 2, "-n needs a non-negative whole number")
    one_error_line(hsearch(indexed, "quokka", "--budget"), 2, "--budget needs a non-negative whole number")
    r = hsearch(indexed, "zanzibar", "xylophone")
    assert (r.returncode, r.stdout, r.stderr) == (1, "no matches\n", "")
    r = hsearch(indexed, "the", "of", "and")  # stop words only
    assert (r.returncode, r.stdout) == (1, "no matches\n")
    r = hsearch(indexed, "--help")
    assert r.returncode == 0 and r.stdout.startswith("hsearch: ranked search")


def test_hsearch_finds_the_workspace_from_a_subfolder(indexed: Workspace):
    top = hsearch(indexed, "-n", "1", "--notes", "0", "quokka violin")
    sub = hsearch(indexed, "-n", "1", "--notes", "0", "quokka violin", cwd=indexed.root / "notes" / "trips")
    assert top.returncode == 0 and sub.stdout == top.stdout and len(rows(top.stdout)) == 1


def test_budget_stops_after_the_matches_unless_told_to_fill(tmp_path: Path):
    """A context takes the lines that matched (by words, meaning or a neighbour's lent score), then stops:
    the best sessions' other turns are listed after them but spend a budget only with --fill."""
    ws = Workspace.init(tmp_path / "ws")
    archive(ws, units("S1", ["the quokka smiled at the harbour", "how lovely", "we had lunch after that",
                             "then the rain came", "and the bus was late"]), "day-1")
    index_json(ws)
    with open_index(ws, readonly=True) as s:
        ranked = s.rank("quokka")
    matched = [h.uid for h in ranked if h.score > 0]
    context = [h.uid for h in ranked if h.score <= 0]
    assert matched[0] == "S1:1" and context  # the turns no score reached follow the matches
    listed = rows(hsearch(ws, "-n", "0", "--notes", "0", "--refs", "quokka").stdout)
    assert len(listed) == len(matched) + len(context)  # a listing shows both
    budgeted = hsearch(ws, "-n", "0", "--notes", "0", "--refs", "--budget", "1000", "quokka")
    assert budgeted.returncode == 0 and len(rows(budgeted.stdout)) == len(matched)
    filled = hsearch(ws, "-n", "0", "--notes", "0", "--refs", "--budget", "1000", "--fill", "quokka")
    assert rows(filled.stdout) == listed
