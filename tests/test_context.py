"""Context: budgeted selection, compact rendering, provenance, refusals."""

from horma.context import Context, human_time
from horma.tokens import count_tokens
from horma.workspace import Note, Unit, Workspace


def _ws(tmp_path):
    ws = Workspace.init(tmp_path / "ws")
    with ws.writer():
        seg = ws.archive(
            [
                Unit("D1:1", "2023-05-08 13:56", "Caroline", "I went to the LGBTQ support group yesterday."),
                Unit("D1:2", "2023-05-08 13:57", "Melanie", "That sounds powerful! How was it?"),
                Unit("D1:3", "2023-05-08 13:58", "Caroline", "Inspiring. I want to study counseling."),
            ],
            "session 1",
        )
        ws.write_note(Note("notes/people/caroline.md", "Caroline", "- support group (D1:1)\n- counseling plan D1:3"))
    return ws, seg


def test_select_renders_compactly_with_provenance(tmp_path):
    ws, seg = _ws(tmp_path)
    ctx = Context("what did Caroline do?", 200, ws)
    obs = ctx.select(seg, 1, 2)
    assert obs.startswith(f"selected {seg}:1-2")
    assert ctx.text == (
        "[8 May 2023]\n"
        "D1:1 Caroline: I went to the LGBTQ support group yesterday.\n"
        "D1:2 Melanie: That sounds powerful! How was it?"
    )
    assert ctx.items[0].refs == ["D1:1", "D1:2"]
    assert ctx.tokens == count_tokens(ctx.text)
    assert ctx.room == 200 - ctx.tokens


def test_reselecting_adds_only_new_lines_and_keeps_file_order(tmp_path):
    ws, seg = _ws(tmp_path)
    ctx = Context("q", 200, ws)
    ctx.select(seg, 3, 3)
    assert ctx.select(seg, 3, 3).startswith("already in context")
    ctx.select(seg)
    assert [line.split()[0] for line in ctx.text.splitlines()[1:]] == ["D1:1", "D1:2", "D1:3"]
    assert ctx.refs == ["D1:3", "D1:1", "D1:2"]


def test_note_selection_carries_cited_units(tmp_path):
    ws, _ = _ws(tmp_path)
    ctx = Context("q", 500, ws)
    ctx.select("./notes/people/caroline.md")
    assert ctx.items[0].path == "notes/people/caroline.md"
    assert ctx.items[0].refs == ["D1:1", "D1:3"]
    assert ctx.text.startswith("# notes/people/caroline.md\n---")


def test_over_budget_selection_is_refused_with_room_left(tmp_path):
    ws, seg = _ws(tmp_path)
    ctx = Context("q", 20, ws)
    obs = ctx.select(seg)
    assert obs.startswith("refused:") and "only 20 of 20 are left" in obs
    assert ctx.items == [] and ctx.text == "" and ctx.tokens == 0


def test_paths_outside_or_missing_and_bad_ranges_are_refused(tmp_path):
    ws, seg = _ws(tmp_path)
    (tmp_path / "secret.txt").write_text("top secret")
    (ws.root / "notes" / "link.md").symlink_to(tmp_path / "secret.txt")
    ctx = Context("q", 500, ws)
    assert "leaves the workspace" in ctx.select("../secret.txt")
    assert "leaves the workspace" in ctx.select("notes/link.md")
    assert "no such file" in ctx.select("notes/nope.md")
    assert "bad line range" in ctx.select(seg, 3, 1)
    assert ctx.text == ""


def test_human_time_formats_dates_and_leaves_others():
    assert human_time("2023-05-08 13:56") == "8 May 2023"
    assert human_time("step 12") == "step 12"
