"""Notes someone wrote, found by meaning: each line of such a note keeps a vector (index version 15), and
``hsearch --own`` lists a line that answers a question put in other words.

The embedder is the real all-MiniLM-L6-v2 of the default install; recall runs through the real navigator
and hsearch in each sandbox backend. Every workspace here is written by the test.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import require_backend
from test_vectors import BACKENDS, DISTRACTORS, TrigramEncoder, _ask, day_units

import horma
from horma.core import index as HI
from horma.index import index_folder, rebuild
from horma.vectors import format_near, meaning
from horma.workspace import Workspace

PREFERENCES = ("# Preferences\n- Allergic to peanuts and cashews: carries an EpiPen\n"
               "- Takes her coffee black, no caffeine after 3pm\n- Sings alto in the community choir\n")
PARAPHRASE = "What snacks are dangerous for me?"  # no word of the peanut line


def line_vectors(ws: Workspace) -> dict[str, bytes | None]:
    """note path:line text -> its stored vector (None: none)."""
    conn = HI.connect(str(index_folder(ws)), readonly=True)
    try:
        return {f"{p}:{t}": q for p, t, q in conn.execute(
            "SELECT n.path, l.text, l.q FROM note_lines l JOIN notes n ON n.id = l.note ORDER BY n.path, l.lineno")}
    finally:
        conn.close()


def write(ws: Workspace, rel: str, text: str) -> None:
    path = ws.root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace.init(tmp_path / "ws")


def test_each_line_of_a_note_someone_wrote_gets_a_vector_that_follows_the_line(ws: Workspace):
    write(ws, "notes/agent/preferences.md", PREFERENCES)
    write(ws, "notes/people/ada.md", "---\ntitle: Ada\nsources: []\n---\n- 2024-01-02: Ada said hello\n")
    rebuild(ws, full=False)
    got = {k: q for k, q in line_vectors(ws).items() if q is not None}
    assert line_vectors(ws)["notes/agent/preferences.md:# Preferences"] is None  # a heading says no fact
    assert set(got) == {f"notes/agent/preferences.md:{t}" for t in PREFERENCES.splitlines()[1:]}  # not the page's
    assert {len(q) for q in got.values()} == {192}
    write(ws, "notes/agent/preferences.md", PREFERENCES.replace("alto", "soprano"))
    rebuild(ws, full=False)
    edited = {k: q for k, q in line_vectors(ws).items() if q is not None}
    new, old = "notes/agent/preferences.md:- Sings soprano in the community choir", next(k for k in got if "alto" in k)
    assert old not in edited and edited[new] is not None and edited[new] != got[old]
    assert {k: v for k, v in edited.items() if k != new} == {k: v for k, v in got.items() if k != old}
    rebuild(ws, full=True)
    assert {k: q for k, q in line_vectors(ws).items() if q is not None} == edited  # a rebuild writes the same
    (ws.root / "notes/agent/preferences.md").unlink()
    rebuild(ws, full=False)
    assert line_vectors(ws) == {}


def test_a_model_change_re_embeds_the_lines_and_a_sandbox_write_leaves_them_to_the_host(ws: Workspace):
    write(ws, "notes/agent/preferences.md", PREFERENCES)
    folder = str(index_folder(ws))
    with HI.SearchIndex.open(folder) as idx:  # a sandbox's hindex: no encoder
        idx.sync(str(ws.root))
    assert set(line_vectors(ws).values()) == {None}
    assert meaning(folder, PARAPHRASE).lines == {}
    rebuild(ws, full=False)  # the host's next write embeds them
    assert sum(q is not None for q in line_vectors(ws).values()) == 3 and meaning(folder, PARAPHRASE).lines
    with HI.SearchIndex.open(folder, TrigramEncoder()) as idx:
        idx.sync(str(ws.root))
    assert sorted(len(q or b"") for q in line_vectors(ws).values()) == [0, 32, 32, 32]  # all the new model's
    assert meaning(folder, PARAPHRASE).lines == {}  # the default model reads none of another's


def test_an_index_of_version_14_gets_the_column_in_place_and_the_host_embeds_its_lines(ws: Workspace):
    write(ws, "notes/agent/preferences.md", PREFERENCES)
    rebuild(ws, full=False)
    db = index_folder(ws) / HI.DB_NAME
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE note_lines DROP COLUMN q")
    conn.execute("UPDATE meta SET value='14' WHERE key='version'")
    conn.commit()
    conn.close()
    folder = str(index_folder(ws))
    assert meaning(folder, PARAPHRASE).lines == {}  # readable as it is, without the lines' meaning
    assert rebuild(ws, full=False)["embedded"] == 0  # no unit embedded again
    assert sum(q is not None for q in line_vectors(ws).values()) == 3
    assert HI.connect(folder, readonly=True).execute("SELECT value FROM meta WHERE key='version'").fetchone()[0] == "15"


@pytest.fixture(params=BACKENDS)
def memory(tmp_path, request):
    if request.param != "local":
        require_backend(request.param)
    with horma.Memory(tmp_path / "ws", sandbox=request.param) as mem:
        mem.record(day_units("A", DISTRACTORS, "2024-01-02"), slug="monday", time="2024-01-02 09:01")
        write(mem.workspace, "notes/agent/preferences.md", PREFERENCES)
        rebuild(mem.workspace, full=False)
        yield mem


def test_a_note_line_put_in_other_words_is_recalled_by_meaning(memory):
    """The words alone find no line for the snacks question; its meaning finds the allergy, and a question
    no line answers gets none."""
    box = memory.retriever.sandbox
    words = box.exec(f"hsearch --own 3 -n 0 --near none -- '{PARAPHRASE}'")
    assert "peanuts" not in words.output
    typed = box.exec(f"hsearch --own 3 -n 0 -- '{PARAPHRASE}'")  # meaning through the sandbox's socket
    assert typed.output.startswith("notes/agent/preferences.md:2:- Allergic to peanuts"), typed.output
    got = memory.recall(PARAPHRASE, budget=60)
    assert any(i.path == "notes/agent/preferences.md" for i in got.items) and "peanuts" in got.text, got.text
    other = memory.recall("When is the quarterly report due?", budget=60)
    assert not any(i.path.startswith("notes/") for i in other.items), other.text


def test_the_host_hands_note_lines_in_after_an_n_and_hsearch_refuses_a_bad_one(memory):
    folder = str(index_folder(memory.workspace))
    near = meaning(folder, PARAPHRASE)
    arg = format_near({}, near.lines)
    assert arg.startswith("n") and all(p.startswith("n") for p in arg.split(","))
    out = memory.retriever.sandbox.exec(f"hsearch --own 1 -n 0 --near {arg} -- '{PARAPHRASE}'")
    assert out.exit_code == 0 and "peanuts" in out.output.splitlines()[0], out.output
    bad = memory.retriever.sandbox.exec("hsearch --own 1 --near nx:0.5 -- pet")
    assert bad.exit_code == 2 and "nID:SIM" in bad.output


def test_the_meaning_socket_answers_the_note_lines_too(tmp_path):
    from horma.near_service import NearService

    ws = Workspace.init(tmp_path / "ws")
    write(ws, "notes/agent/preferences.md", PREFERENCES)
    rebuild(ws, full=False)
    folder = str(index_folder(ws))
    service = NearService(folder)
    try:
        answer = _ask(service.path, (PARAPHRASE + "\n").encode())
    finally:
        service.close()
    lines = {int(k[1:]): round(float(v), 3) for k, v in (p.split(":") for p in answer.strip().split(","))}
    assert lines == {k: round(v, 3) for k, v in meaning(folder, PARAPHRASE).lines.items()} and len(lines) == 3
