"""Context: budgeted selection, compact rendering, provenance, refusals."""

import random

import horma.context
from horma.context import Context, human_time
from horma.core.text import count_tokens
from horma.note import Note
from horma.workspace import Unit, Workspace


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
    got = ctx.select(seg, 1, 2)
    assert (got.status, got.path, got.start, got.end) == ("selected", seg, 1, 2)
    assert got.observation().startswith(f"selected {seg}:1-2")
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
    again = ctx.select(seg, 3, 3)
    assert again.status == "duplicate" and again.observation() == f"already in context: {seg}:3-3"
    ctx.select(seg)
    assert [line.split()[0] for line in ctx.text.splitlines()[1:]] == ["D1:1", "D1:2", "D1:3"]
    assert ctx.refs == ["D1:3", "D1:1", "D1:2"]


def test_a_conversation_recorded_a_message_at_a_time_shows_one_header_a_day(tmp_path):
    """``horma add`` and an MCP client record each message as a segment of its own: a header a segment was a
    header a turn. Another session the same day keeps a block of its own."""
    ws = Workspace.init(tmp_path / "ws")
    turns = [Unit("m:1", "2024-04-02 20:00", "user", "Steel or aluminium for the commuter bike?"),
             Unit("m:2", "2024-04-02 20:00", "assistant", "Steel rides softer over potholes."),
             Unit("m:3", "2024-04-02 23:59", "user", "Steel it is."),
             Unit("m:4", "2024-04-03 00:01", "user", "Ordered the steel one.")]
    other = Unit("o:1", "2024-04-02 21:00", "user", "A cake for Ana's birthday?")
    with ws.writer():
        segs = [ws.archive([u], "chat", u.time) for u in turns]  # chat, chat-2 (one minute), chat, chat
        segs.insert(2, ws.archive([other], "cake", other.time))
    assert "__chat-2/" in segs[1]
    ctx = Context("bike", 200, ws)
    for seg in reversed(segs):  # selected best first: the latest turn came first
        assert ctx.select(seg).status == "selected"
    assert ctx.text == ("[3 April 2024]\nm:4 user: Ordered the steel one.\n\n[2 April 2024]\n"
                        "m:1 user: Steel or aluminium for the commuter bike?\nm:2 assistant: Steel rides softer over "
                        "potholes.\nm:3 user: Steel it is.\n\n[2 April 2024]\no:1 user: A cake for Ana's birthday?")
    assert ctx.tokens == count_tokens(ctx.text) == sum(i.tokens for i in ctx.items)


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
    got = ctx.select(seg)
    assert (got.status, got.left, got.budget) == ("over_budget", 20, 20) and got.tokens > 20
    assert got.observation().startswith("refused:") and "only 20 of 20 are left" in got.observation()
    assert ctx.items == [] and ctx.text == "" and ctx.tokens == 0


def test_paths_outside_or_missing_and_bad_ranges_are_refused(tmp_path):
    ws, seg = _ws(tmp_path)
    (tmp_path / "secret.txt").write_text("top secret")
    (ws.root / "notes" / "link.md").symlink_to(tmp_path / "secret.txt")
    ctx = Context("q", 500, ws)
    for args, reason in [(("../secret.txt",), "leaves the workspace"), (("notes/link.md",), "leaves the workspace"),
                         (("notes/nope.md",), "no such file"), ((seg, 3, 1), "bad line range")]:
        got = ctx.select(*args)
        assert got.status == "refused" and not got.selected and reason in got.reason
        assert got.observation() == f"refused: {got.reason}"
    assert ctx.text == ""


def test_human_time_formats_dates_and_leaves_others():
    assert human_time("2023-05-08 13:56") == "8 May 2023"
    assert human_time("step 12") == "step 12"


# -- running sums: tokens == count_tokens(text) without re-counting the context ----------
def _mixed_ws(tmp_path):
    """Raw segments on several dates, a hand-written raw file whose first line is no unit,
    one with no units at all, and notes with blank lines, punctuation and unicode."""
    ws = Workspace.init(tmp_path / "ws")
    texts = ["Hi!", "I ran 5km -- in 28:30, a PB.", "naïve café? ok...", "(see D1:2)", "", "a_b c-d e.f"]
    segs = []
    with ws.writer():
        for s in range(4):
            units = [Unit(f"S{s}:{i}", f"2023-0{s + 1}-1{i % 9} 10:0{i % 10}", ["Ann", "Bo Li", ""][i % 3],
                          texts[(s + i) % len(texts)] or "...") for i in range(1, 13)]
            segs.append(ws.archive(units, f"session {s}"))
        ws.write_note(Note("notes/a.md", "A", "- first (S0:1)\n\n- then S1:3, S2:4.\n¿Qué? ✓ done"))
        ws.write_note(Note("notes/b.md", "B", "\n".join(f"line {i}: S3:{i}" for i in range(1, 9))))
    mixed = ws.root / "raw" / "2023-09-01T00-00__mixed"
    mixed.mkdir()
    (mixed / "units.log").write_text("# not a unit\nX:1 | 2023-09-01 08:00 | Cy: hello there\nplain | line\n"
                                     "X:2 | step 4 | Cy: go north!\n")
    plain = ws.root / "raw" / "loose"
    plain.mkdir()
    (plain / "log.txt").write_text("no units here\njust: text, lines\n")
    paths = [*segs, "notes/a.md", "notes/b.md", "raw/2023-09-01T00-00__mixed/units.log", "raw/loose/log.txt"]
    sizes = {p: len((ws.root / p).read_text().splitlines()) for p in paths}
    return ws, sizes


def _check(ctx):
    text = ctx.text
    assert ctx.tokens == count_tokens(text) == sum(i.tokens for i in ctx.items)
    assert ctx.room == ctx.budget - ctx.tokens >= 0
    # a block a day of a session (another file: its own, headed by its name), blocks in the order their first
    # lines come (files in first-selection order, each in line order), each block's lines in archive order
    # (path, line); blocks apart by a blank line
    order = list(dict.fromkeys(i.path for i in ctx.items))
    assert list(ctx._lines) == order and set(ctx._blocks) == set(order)
    for item in ctx.items:
        lines = item.text.split("\n")
        assert len(lines) <= item.end - item.start + 1
        for line in lines:
            assert line in ctx._lines[item.path].values()
    blocks: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for p in order:
        for n in sorted(ctx._lines[p]):
            blocks.setdefault(ctx._blocks[p][n], []).append((p, n))
    assert text == "\n\n".join(header + "\n" + "\n".join(ctx._lines[p][n] for p, n in sorted(rows))
                               for (header, _), rows in blocks.items())
    assert sum(len(r) for r in ctx._lines.values()) == sum(len(i.text.split("\n")) for i in ctx.items)


def test_tokens_match_the_rendered_text_after_many_random_selections(tmp_path):
    ws, sizes = _mixed_ws(tmp_path)
    rng = random.Random(7)
    paths = list(sizes)
    seen_outcomes = set()
    for _trial in range(25):
        ctx = Context("q", rng.choice([15, 40, 90, 400, 10_000]), ws)
        outcomes = set()
        for _ in range(40):
            path = rng.choice(paths)
            n = sizes[path]
            kind = rng.random()
            before = (ctx.text, ctx.tokens, len(ctx.items))
            if kind < 0.1:
                got = ctx.select(path)  # whole file
            elif kind < 0.15:
                got = ctx.select(path, rng.randint(-1, n + 2), rng.randint(-1, n + 2))  # maybe a bad range
            else:
                a = rng.randint(1, n)
                got = ctx.select(path, a, min(n, a + rng.choice([0, 0, 1, 2, 5])))
            outcomes.add(got.status)
            if not got.selected:
                assert (ctx.text, ctx.tokens, len(ctx.items)) == before
            else:
                item = ctx.items[-1]
                assert (got.path, got.start, got.end, got.tokens, got.left) == (item.path, item.start, item.end,
                                                                                item.tokens, ctx.room)
                assert ctx.tokens == before[1] + ctx.items[-1].tokens
            _check(ctx)
        assert ctx.refs == list(dict.fromkeys(r for i in ctx.items for r in i.refs))
        seen_outcomes.update(outcomes)
    assert {"selected", "refused", "duplicate"} <= seen_outcomes


def test_budget_edge_exact_fit_is_taken_one_more_token_is_refused(tmp_path):
    ws, seg = _ws(tmp_path)
    probe = Context("q", 10_000, ws)
    probe.select(seg, 1, 1)
    first = probe.tokens  # header + line 1
    probe.select(seg, 2, 2)
    second = probe.tokens - first  # line 2 alone: the segment's header is paid once
    assert probe.items[1].tokens == second == count_tokens(probe.items[1].text)

    ctx = Context("q", first + second - 1, ws)
    assert ctx.select(seg, 1, 1).selected
    obs = ctx.select(seg, 2, 2).observation()
    assert obs == (f"refused: {seg}:2-2 needs {second} tokens but only {second - 1} of "
                   f"{first + second - 1} are left; select fewer lines")
    assert ctx.tokens == first == count_tokens(ctx.text)

    ctx = Context("q", first + second, ws)
    ctx.select(seg, 1, 1)
    assert ctx.select(seg, 2, 2).observation() == f"selected {seg}:2-2 ({second} tokens); 0 tokens left"
    assert ctx.room == 0 and ctx.tokens == count_tokens(ctx.text) == first + second
    assert ctx.select(seg, 3, 3).status == "over_budget" and ctx.room == 0


def test_a_refused_first_selection_of_a_segment_leaves_no_header(tmp_path):
    ws, seg = _ws(tmp_path)
    ctx = Context("q", 20, ws)
    assert ctx.select(seg).status == "over_budget"
    assert ctx.select("notes/people/caroline.md", 1, 1).selected
    assert ctx.text.startswith("# notes/people/caroline.md\n") and seg not in ctx.text
    assert ctx.tokens == count_tokens(ctx.text)


def _many_segments(tmp_path, n_segments, per_segment=50):
    ws = Workspace.init(tmp_path / "ws")
    with ws.writer():
        segs = [ws.archive([Unit(f"D{s}:{i}", f"2023-05-{1 + s % 28:02d} 10:00", "Ann",
                                 f"turn {i} of session {s}, fine.")
                            for i in range(1, per_segment + 1)], f"s{s}") for s in range(n_segments)]
    return ws, segs


def test_a_selection_costs_its_own_lines_not_the_context(tmp_path, monkeypatch):
    ws, segs = _many_segments(tmp_path, 44)
    counted: list[int] = []
    real = horma.context.count_tokens

    def counting(text):
        counted.append(len(text))
        return real(text)

    monkeypatch.setattr(horma.context, "count_tokens", counting)
    ctx = Context("q", 10**9, ws)
    cost_at = {}
    done = 0
    for probe, target in ((49, 200), (50, 2000)):
        while done < target:  # lines 1..46 of every segment, one select each
            seg = segs[done % len(segs)]
            ctx.select(seg, 1 + done // len(segs), 1 + done // len(segs))
            done += 1
        counted.clear()
        assert ctx.tokens > 0 and ctx.room > 0  # free: no counting
        assert counted == []
        assert ctx.select(segs[-1], probe, probe).selected  # one more line, segment present
        cost_at[target] = (len(counted), sum(counted))
    assert cost_at[200] == cost_at[2000]  # same calls, same characters counted
    assert cost_at[2000][0] == 1 and cost_at[2000][1] < 60
    counted.clear()
    text = ctx.text
    assert ctx.text is text and counted == []  # rendered once, cached, never re-counted
    assert ctx.tokens == real(text) and len(ctx.items) == 2002


def test_text_cache_is_dropped_when_a_selection_changes_the_context(tmp_path):
    ws, seg = _ws(tmp_path)
    ctx = Context("q", 500, ws)
    ctx.select(seg, 2, 2)
    before = ctx.text
    ctx.select(seg, 9, 9)  # bad range: nothing changes
    assert ctx.text is before
    ctx.select(seg, 1, 1)
    assert ctx.text.splitlines()[1].startswith("D1:1 ") and ctx.tokens == count_tokens(ctx.text)
