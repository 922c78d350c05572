"""A question about the present gets a fact's newest value first (horma.core.updates, horma.update_links)."""

from __future__ import annotations

import logging
import re
import sqlite3
from pathlib import Path

import pytest
from conftest import archive

from horma.core import index_schema
from horma.core.text import words
from horma.core.updates import MOVED_TO, asks_now
from horma.core.vectors import LINKS_KEY, RULE_KEY
from horma.index import index_folder, open_index, rebuild
from horma.workspace import Unit, Workspace

# Spring: Portuguese by app, in turns that use the question's words. Autumn: the way changed, said in other
# words ("Duolingo", "the bus" and "evening class", not "learning Portuguese"): much like the first turn.
SPRING = [
    Unit("p:1", "2024-03-04 08:00", "user", "I'm learning Portuguese with Duolingo, fifteen minutes on the bus "
                                            "every morning."),
    Unit("p:2", "2024-03-04 08:01", "assistant", "Duolingo is a fine start for Portuguese; add some listening."),
    Unit("p:3", "2024-03-04 08:02", "user", "Portuguese pronunciation is the hard part for me."),
    Unit("p:4", "2024-03-04 08:03", "assistant", "European Portuguese swallows its vowels: podcasts help."),
]
SUMMER = [Unit(f"s:{i}", f"2024-06-0{i} 12:00", "user" if i % 2 else "assistant", t) for i, t in enumerate([
    "My sister is visiting next week.", "Lovely, what are you planning?", "A day at the museum and a concert.",
    "The science museum has a new exhibit.", "We adopted a cat called Biscuit.", "Congratulations on Biscuit!",
], 1)]
AUTUMN = [
    Unit("a:1", "2024-09-10 19:00", "user", "No more Duolingo on the bus: I go to an evening class at the Language "
                                            "Exchange every Thursday instead."),
    Unit("a:2", "2024-09-10 19:01", "assistant", "A class with a teacher will help your speaking a lot."),
]
NOW = "How am I learning Portuguese these days?"
# One evening's talk about a book: the later turn says much what the first one did, minutes after it.
TALK = [
    Unit("t:1", "2024-05-02 20:00", "user", "I'm reading The Overstory by Richard Powers, a novel about trees."),
    Unit("t:2", "2024-05-02 20:01", "assistant", "A fine choice: it won the Pulitzer Prize for fiction."),
    Unit("t:3", "2024-05-02 20:06", "user", "The Overstory by Richard Powers is a long novel about trees and "
                                            "the people who love them."),
]


def _workspace(root: Path) -> Workspace:
    ws = Workspace.init(root)
    for units, slug in ((SPRING, "spring"), (SUMMER, "summer"), (AUTUMN, "autumn")):
        archive(ws, units, slug)
        rebuild(ws, full=False)  # one sync a session, as a manager's records index them
    return ws


def _links(ws: Workspace) -> set[tuple[str, str]]:
    conn = sqlite3.connect(index_folder(ws) / index_schema.DB_NAME)
    try:
        return set(conn.execute("SELECT a.uid, b.uid FROM updates l JOIN units a ON a.id = l.unit "
                                "JOIN units b ON b.id = l.later"))
    finally:
        conn.close()


@pytest.mark.parametrize(("question", "now"), [
    (NOW, True),
    ("What do I do for work now?", True),
    ("Which gym am I currently using?", True),
    ("Do I still live in Leeds?", True),
    ("How much do I weigh at the moment?", True),
    ("What book is Jon currently reading?", False),  # not the asker's own state
    ("What did I do for work before the move?", False),  # an earlier value
    ("Where did I live on 3 May 2023, and where now?", False),  # a dated question
    ("How am I learning Portuguese?", False),  # no word of the present: the ranking as it is
])
def test_which_questions_ask_the_present(question: str, now: bool) -> None:
    assert asks_now(words(question)) is now


def test_a_later_turn_much_like_an_earlier_one_is_its_update(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    links = _links(ws)
    assert ("p:1", "a:1") in links  # recorded a session at a time: linked when the autumn came
    assert not {a for a, _ in links} & {"p:2", "p:4", "a:2"}  # an assistant's turns get no links
    assert all(a.split(":")[0] != b.split(":")[0] for a, b in links)  # never within one session
    rebuild(ws, full=True)
    assert _links(ws) == links  # a rebuild links the same


def test_a_conversation_recorded_a_turn_at_a_time_links_as_if_recorded_whole(tmp_path: Path) -> None:
    """A client that records each turn as it comes (``horma add``, an MCP ``record`` a message) makes a
    segment of each: a talk going on is still not an update of itself, and the autumn still updates the
    spring."""
    whole, turns = Workspace.init(tmp_path / "whole"), Workspace.init(tmp_path / "turns")
    for units, slug in ((SPRING, "spring"), (TALK, "talk"), (AUTUMN, "autumn")):
        archive(whole, units, slug)
        rebuild(whole, full=False)
        for unit in units:
            archive(turns, [unit], slug)
            rebuild(turns, full=False)
    assert ("p:1", "a:1") in _links(turns)
    assert not {pair for pair in _links(turns) if pair[0].startswith("t:")}  # t:3 is not t:1's update
    assert _links(turns) == _links(whole)


def test_links_of_an_earlier_rule_are_made_anew(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    conn = sqlite3.connect(index_folder(ws) / index_schema.DB_NAME)
    conn.execute("DELETE FROM meta WHERE key=?", (RULE_KEY,))  # as an index linked before the rule was named
    conn.execute("INSERT OR REPLACE INTO updates(unit, later) SELECT a.id, b.id FROM units a, units b "
                 "WHERE a.uid = 'p:1' AND b.uid = 'p:3'")  # a link the rule does not make, in place of a:1
    conn.commit()
    conn.close()
    rebuild(ws, full=False)
    links = _links(ws)
    assert ("p:1", "a:1") in links and ("p:1", "p:3") not in links


# Where someone lives, told twice half a year apart. Either later turn is only somewhat like the first
# (cosine 0.52 and 0.54, under UPDATE_SIM); one of them says that something changed.
LEEDS = Unit("h:1", "2024-01-05 10:00", "user", "I live in Leeds, in a flat on Otley Road.")
MOVED = Unit("m:1", "2024-06-20 09:00", "user", "We moved! We now rent a house in Headingley, much closer to "
                                                "the climbing gym.")
RENT = Unit("r:1", "2024-06-20 09:00", "user", "We rent a house in Headingley, much closer to the climbing gym.")


def _home(root: Path, later: Unit) -> Workspace:
    ws = Workspace.init(root)
    for unit, slug in ((LEEDS, "leeds"), (later, "later")):
        archive(ws, [unit], slug)
        rebuild(ws, full=False)
    return ws


def test_a_later_turn_that_says_a_change_updates_one_it_is_only_somewhat_like(tmp_path: Path) -> None:
    """ "We moved! We now rent..." shares no word with "I live in Leeds" that a question about where one
    lives would use, and is too unlike it for UPDATE_SIM; its words say it changed something, and then its
    likeness is enough (CHANGE_SIM). The same likeness without them links nothing."""
    moved, rent = _home(tmp_path / "moved", MOVED), _home(tmp_path / "rent", RENT)
    assert _links(moved) == {("h:1", "m:1")}
    assert _links(rent) == set()
    with open_index(moved, readonly=True) as s:
        assert s.rank("Where do I live now?")[0].uid == "m:1"
        assert s.rank("Where do I live?")[0].uid == "h:1"  # not asked about the present: as ranked


def test_linking_a_whole_archive_anew_is_announced_with_its_progress(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """An index of an earlier rule is linked anew at its first host write, minutes at 10^5 units: past
    ANNOUNCE_AT units that wait is said on the log (stderr, where no handler is set), and only then, and its
    progress is reported as it goes."""
    from horma import update_links

    ws = _workspace(tmp_path / "ws")
    monkeypatch.setattr(update_links, "ANNOUNCE_AT", 5)
    monkeypatch.setattr(update_links, "CHUNK", 2)
    conn = sqlite3.connect(index_folder(ws) / index_schema.DB_NAME)
    units = conn.execute("SELECT count(*) FROM units").fetchone()[0]
    conn.execute("UPDATE meta SET value='2' WHERE key=?", (RULE_KEY,))
    conn.commit()
    conn.close()
    with caplog.at_level(logging.WARNING, logger="horma.update_links"):
        rebuild(ws, full=False)
        rebuild(ws, full=False)  # linked: nothing to say
        archive(ws, TALK, "talk")
        rebuild(ws, full=False)  # three new units: under ANNOUNCE_AT, and not anew
    said = [r.getMessage() for r in caplog.records if r.name == "horma.update_links"]
    assert f"linking {units} units" in said[0], said
    # then the comparisons' progress, a line about each tenth (here each chunk of 2), and nothing after the wait
    shown = [int(m.group(1)) for m in map(re.compile(r"compared (\d+) of (\d+) units").search, said[1:]) if m]
    assert len(shown) == len(said) - 1 == (units - 1) // 2 and shown == list(range(2, units, 2)), said


@pytest.mark.parametrize("synced", [True, False])
def test_an_index_of_version_12_says_its_changes_and_is_linked_anew_at_the_next_write(tmp_path: Path,
                                                                                      synced: bool) -> None:
    """Version 13 keeps whether a unit says a change (``units.changes``), and links by it (rule 3): the first
    host write of an older index reads the flag of every unit back from raw, then links the archive anew,
    with or without a sync. Read-only, as hsearch reads it, the older file ranks with the links it has."""
    ws = _home(tmp_path / "ws", MOVED)
    db = index_folder(ws) / index_schema.DB_NAME
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE units DROP COLUMN changes")
    conn.execute("UPDATE meta SET value='12' WHERE key='version'")
    conn.execute("UPDATE meta SET value='2' WHERE key=?", (RULE_KEY,))
    conn.execute("DELETE FROM updates")  # rule 2 did not link them
    conn.commit()
    conn.close()
    with open_index(ws, readonly=True) as s:
        assert s.rank("Where do I live now?")[0].uid == "h:1"
    if synced:
        rebuild(ws, full=False)
    else:  # as a manager's record indexes its segment: no sync
        rel = archive(ws, SUMMER[:1], "summer")
        with open_index(ws) as idx, idx.transaction():
            idx.add_segment(rel, ws.resolve(rel).read_text())
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT value FROM meta WHERE key='version'").fetchone() == (index_schema.SCHEMA_VERSION,)
        assert conn.execute("SELECT uid FROM units WHERE changes = 1").fetchall() == [("m:1",)]
        assert conn.execute("SELECT count(*) FROM units WHERE changes IS NULL").fetchone() == (0,)
    finally:
        conn.close()
    assert ("h:1", "m:1") in _links(ws)


def test_a_question_about_the_present_gets_the_newest_value_first(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    with open_index(ws, readonly=True) as s:
        ranked = [h.uid for h in s.rank(NOW)]
        plain = [h.uid for h in s.rank("How am I learning Portuguese?")]
    assert ranked[0] == "a:1", ranked
    assert "p:1" in ranked[:MOVED_TO + 1], ranked  # the earlier value stays, behind the newer one
    assert plain[0] == "p:1" and "a:1" not in plain, plain  # without "now" the words alone, which never reach it


def test_an_index_from_before_the_links_is_linked_by_the_next_host_write(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    db = index_folder(ws) / index_schema.DB_NAME
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE updates")
    conn.execute("DELETE FROM meta WHERE key=?", (LINKS_KEY,))
    conn.execute("UPDATE meta SET value='9' WHERE key='version'")
    conn.commit()
    conn.close()
    with open_index(ws, readonly=True) as s:  # read-only, as hsearch: no links yet, the ranking as before
        assert s.rank(NOW)[0].uid != "a:1"
    rebuild(ws, full=False)
    assert ("p:1", "a:1") in _links(ws)
    with open_index(ws, readonly=True) as s:
        assert s.rank(NOW)[0].uid == "a:1"


def test_another_model_is_linked_again(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    conn = sqlite3.connect(index_folder(ws) / index_schema.DB_NAME)
    conn.execute("UPDATE meta SET value='some-other-model' WHERE key='embed_model'")
    conn.execute("INSERT INTO updates(unit, later) SELECT id, id FROM units WHERE uid = 's:1'")  # a stale link
    conn.commit()
    conn.close()
    rebuild(ws, full=False)
    links = _links(ws)
    assert ("p:1", "a:1") in links and ("s:1", "s:1") not in links


def test_hsearch_in_a_sandbox_puts_the_newest_value_first(tmp_path: Path, isolated_backend: str) -> None:
    """The links are in the index and the rule in the core that hsearch runs: an LLM retriever gets it too."""
    from horma.sandbox import Limits, open_sandbox

    ws = _workspace(tmp_path / "ws")
    with open_sandbox(ws.root, isolated_backend, "read", limits=Limits(timeout=20)) as box:
        r = box.exec(f"hsearch -n 1 --notes 0 --near none '{NOW}'")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0].split(" | ")[0].endswith("a:1"), r.output


def test_units_embedded_after_later_ones_were_linked_are_linked_too(tmp_path: Path) -> None:
    """A sandbox's hindex indexes units without vectors; the host embeds them after later units were linked."""
    ws = _workspace(tmp_path / "ws")
    conn = sqlite3.connect(index_folder(ws) / index_schema.DB_NAME)
    conn.execute("DELETE FROM vectors WHERE unit IN (SELECT id FROM units WHERE uid LIKE 'p:%')")
    conn.execute("DELETE FROM updates")  # as if the spring had come through hindex: no vector, no link
    assert conn.execute("SELECT CAST(value AS INTEGER) FROM meta WHERE key=?", (LINKS_KEY,)).fetchone()[0] > 4
    conn.commit()
    conn.close()
    rebuild(ws, full=False)  # embeds the spring's turns, ids below the last one linked
    assert ("p:1", "a:1") in _links(ws)


def test_a_forgotten_update_leaves_no_link_and_the_earlier_value_comes_back(tmp_path: Path) -> None:
    from horma.forget import forget
    from horma.forget_selection import Selection

    ws = _workspace(tmp_path / "ws")
    forget(ws, Selection.of(units=["a:1"]))
    assert not {pair for pair in _links(ws) if "a:1" in pair}
    with open_index(ws, readonly=True) as s:
        assert s.rank(NOW)[0].uid == "p:1"
