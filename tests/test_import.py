"""`horma import chatgpt|claude|markdown` on exports we wrote in the services' formats (never real ones)."""

from __future__ import annotations

import json
import os
import time
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from horma.agents import mention_notes
from horma.cli import app
from horma.workspace import Workspace

EXPORTS = Path(__file__).parent / "fixtures" / "exports"
CHATGPT = EXPORTS / "chatgpt_conversations.json"
CLAUDE = EXPORTS / "claude_conversations.json"
runner = CliRunner()

CHATGPT_IDS = {"chatgpt:u1-new", "chatgpt:a1-new", "chatgpt:u2", "chatgpt:a2",
               "chatgpt:u3", "chatgpt:a3-new", "chatgpt:u4", "chatgpt:a4"}
CLAUDE_IDS = {"claude:c1-m1", "claude:c1-m2", "claude:c1-m3", "claude:c1-m4", "claude:c2-m1", "claude:c2-m2",
              "claude:c3-m1b", "claude:c3-m2b"}
# text that is in the exports but must never reach raw/: other branches, system, tools, thoughts, files
LEFT_OUT = ["Porto", "SECRET-PROFILE-TEXT", "TOOL-OUTPUT-TEXT", "HIDDEN-THOUGHT-TEXT", "20 seconds each run",
            "matplotlib", "ATTACHMENT-CONTENT-TEXT", "HIDDEN-THINKING-TEXT", "TOOL-RESULT-TEXT", "golf"]


@pytest.fixture(autouse=True)
def utc_and_no_user_config(tmp_path_factory, monkeypatch):
    """Exports carry UTC instants, shown on this machine's clock: pin the clock to UTC; horma's defaults only."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg")))
    for name in list(os.environ):
        if name.startswith("HORMA_"):
            monkeypatch.delenv(name)
    yield
    monkeypatch.undo()
    time.tzset()


def cli(*args: object) -> dict:
    res = runner.invoke(app, [str(a) for a in args] + ["--backend", "local", "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def refused(args: list[object], message: str) -> None:
    res = runner.invoke(app, [str(a) for a in args] + ["--backend", "local"])
    assert res.exit_code != 0, res.output
    assert message in " ".join(res.output.split()), res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1, res.output


def raw_units(ws: Path) -> list[tuple[str, str, str]]:
    """(segment folder, unit id, the whole line) for every archived unit, in archive order."""
    return [(line.path.split("/")[1], line.unit.id, line.unit.line())
            for line in Workspace.open(ws).iter_raw()]


def zipped(tmp_path: Path, source: Path, member: str = "conversations.json") -> Path:
    """The export as the service mails it: a zip with conversations.json beside other files."""
    out = tmp_path / f"{source.stem}.zip"
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("user.json", json.dumps({"id": "user-1"}))
        zf.writestr(member, source.read_text())
        zf.writestr("file-ABC-flat.jpg", b"\xff\xd8\xff not read")
    return out


def test_chatgpt_export_every_message_once_on_the_branch_the_user_saw(tmp_path):
    ws = tmp_path / "mem"
    d = cli("import", "chatgpt", zipped(tmp_path, CHATGPT), "-w", ws, "--me", "Ana")
    units = raw_units(ws)
    assert [u[1] for u in units] == sorted(CHATGPT_IDS, key=[u[1] for u in units].index)
    assert {u[1] for u in units} == CHATGPT_IDS and len(units) == len(CHATGPT_IDS)
    assert d["archived"] == 8 and d["skipped"] == 0 and d["segments_read"] == 2
    assert d["left_out"] == {"attachment": 1, "empty conversation": 1, "off-branch message": 3,
                             "reasoning block": 1, "system message": 3, "tool message": 2}
    # one segment per conversation, named by its title and dated by its real start, oldest first
    assert sorted({u[0] for u in units}) == ["2024-03-02T09-00__moving-to-lisbon",
                                             "2024-03-11T09-00__plotting-my-running-times"]
    lines = {u[1]: u[2] for u in units}
    assert lines["chatgpt:u1-new"] == ("chatgpt:u1-new | 2024-03-02 09:01 | Ana: My sister Marta moves to Lisbon in "
                                       "June for a job at a bakery.")
    assert lines["chatgpt:a2"].startswith("chatgpt:a2 | 2024-03-02 09:02:10 | ChatGPT: 950 euros")
    assert lines["chatgpt:u2"].endswith("Ana: Here is the flat she found in Alfama, the rent is 950 euros.")
    raw = "\n".join(lines.values())
    for text in LEFT_OUT:
        assert text not in raw


def test_reimport_adds_nothing_and_a_newer_export_adds_only_its_new_messages(tmp_path):
    ws = tmp_path / "mem"
    cli("import", "chatgpt", CHATGPT, "-w", ws)
    before = raw_units(ws)
    again = cli("import", "chatgpt", zipped(tmp_path, CHATGPT), "-w", ws)
    assert (again["archived"], again["skipped"]) == (0, 8)
    assert raw_units(ws) == before
    data = json.loads(CHATGPT.read_text())
    run = next(c for c in data if c["title"] == "Plotting my running times")
    run["mapping"]["a4"]["children"] = ["u5"]
    run["mapping"]["u5"] = {"id": "u5", "parent": "a4", "children": [], "message": {
        "id": "u5", "author": {"role": "user"}, "create_time": 1710320000.0,
        "content": {"content_type": "text", "parts": ["I ran 27:55 today at the park run!"]}, "recipient": "all"}}
    run["current_node"] = "u5"
    newer = tmp_path / "newer" / "conversations.json"
    newer.parent.mkdir()
    newer.write_text(json.dumps(data))
    d = cli("import", "chatgpt", newer.parent, "-w", ws)  # the unzipped folder works too
    assert (d["archived"], d["skipped"]) == (1, 8)
    after = raw_units(ws)
    assert after[: len(before)] == before and [u[1] for u in after[len(before):]] == ["chatgpt:u5"]


def test_claude_export_every_message_once(tmp_path):
    ws = tmp_path / "mem"
    d = cli("import", "claude", zipped(tmp_path, CLAUDE), "-w", ws)
    units = raw_units(ws)
    assert sorted(u[1] for u in units) == sorted(CLAUDE_IDS)
    assert d["left_out"] == {"attachment": 2, "empty message": 1, "off-branch message": 2, "reasoning block": 1,
                           "tool message": 2}
    assert sorted({u[0] for u in units}) == ["2023-11-20T08-00__trip-planning", "2024-04-05T18-30__sourdough-starter",
                                             "2024-05-01T12-00__gift-ideas"]
    lines = {u[1]: u[2] for u in units}
    assert lines["claude:c1-m1"] == ("claude:c1-m1 | 2024-04-05 18:30:05 | me: My starter is called Bubbles and I "
                                     "feed it rye flour every morning at 7.")
    assert lines["claude:c2-m2"] == "claude:c2-m2 | 2023-11-20 08:00:30 | Claude: Osaka in December is cold but dry; " \
                                    "pack layers."
    raw = "\n".join(lines.values())
    for text in LEFT_OUT:
        assert text not in raw
    assert cli("import", "claude", CLAUDE, "-w", ws)["archived"] == 0
    assert raw_units(ws) == units


def test_recall_finds_facts_from_both_exports(tmp_path):
    ws = tmp_path / "mem"
    cli("import", "chatgpt", CHATGPT, "-w", ws, "--me", "Ana")
    cli("import", "claude", CLAUDE, "-w", ws, "--me", "Ana")
    for query, unit in [("Where is my sister Marta moving?", "chatgpt:u1-new"),
                        ("What is my sourdough starter called?", "claude:c1-m1"),
                        ("When am I flying to Osaka?", "claude:c2-m1")]:
        ctx = cli("recall", ws, query, "--budget", "300")
        assert unit in {ref for item in ctx["items"] for ref in item["refs"]}, (query, ctx["context"])
    assert (ws / "notes" / "people" / "ana.md").is_file()


@pytest.mark.parametrize("name, content, message", [
    ("chatgpt", "[{\"title\": \"x\"", "not valid JSON"),
    ("chatgpt", json.dumps({"conversations": []}), "expected a JSON array of conversations"),
    ("chatgpt", CLAUDE.read_text(), "no 'mapping' (is this a ChatGPT export?)"),
    ("claude", CHATGPT.read_text(), "no 'chat_messages' (is this a Claude export?)"),
    ("claude", json.dumps([{"name": "x", "chat_messages": [{"uuid": "m", "sender": "robot", "text": "hi"}]}]),
     "sender 'robot' is neither 'human' nor 'assistant'"),
    ("chatgpt", json.dumps([{"title": "t", "create_time": "soon", "mapping": {}}]), "'soon' is not a timestamp"),
])
def test_a_bad_export_is_one_line_and_touches_nothing(tmp_path, name, content, message):
    bad = tmp_path / "conversations.json"
    bad.write_text(content)
    refused(["import", name, bad, "-w", tmp_path / "mem"], message)
    assert not (tmp_path / "mem").exists()


def test_zips_without_conversations_or_damaged_are_refused(tmp_path):
    empty = tmp_path / "other.zip"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("readme.txt", "hi")
    refused(["import", "claude", empty, "-w", tmp_path / "mem"], "no conversations.json in this zip")
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(zipped(tmp_path, CLAUDE).read_bytes()[:-30])
    refused(["import", "claude", damaged, "-w", tmp_path / "mem"], "damaged.zip")
    refused(["import", "claude", tmp_path / "nope.zip", "-w", tmp_path / "mem"], "no such file")
    assert not (tmp_path / "mem").exists()


def test_summary_line_counts_in_english(tmp_path):
    res = runner.invoke(app, ["import", "chatgpt", str(CHATGPT), "-w", str(tmp_path / "mem"), "--backend", "local"])
    assert res.exit_code == 0, res.output
    assert res.stdout.strip().splitlines() == [
        (f"imported 8 new messages from 2 conversations (0 already there) into {tmp_path / 'mem'}; left out: "
        "1 attachment, 1 empty conversation, 3 off-branch messages, 1 reasoning block, 3 system messages, "
        "2 tool messages")]


def test_markdown_notes_one_unit_per_paragraph_dated_by_the_file(tmp_path):
    notes = tmp_path / "notes"
    (notes / "journal").mkdir(parents=True)
    (notes / ".obsidian").mkdir()
    (notes / ".obsidian" / "workspace.md").write_text("not a note")
    (notes / "journal" / "2024-02-10.md").write_text(
        "# Saturday\n\nWent climbing with Iris at the boulder gym.\nShe lent me her chalk bag.\n\n"
        "## Groceries\n\n- oat milk\n- eggs\n\n```\ncode stays one\n\nblock\n```\n")
    (notes / "recipes.md").write_text("---\ntitle: Recipes\ndate: 2023-12-24\n---\nMum's stollen needs 500 g of "
                                      "flour and a night to rest.\n")
    undated = notes / "ideas.md"
    undated.write_text("A podcast about old maps.\n")
    os.utime(undated, (1700000000, 1700000000))  # 2023-11-14 22:13 UTC
    ws = tmp_path / "mem"
    d = cli("import", "markdown", notes, "-w", ws)
    units = raw_units(ws)
    lines = [u[2].split(" | ", 1)[1] for u in units]
    assert lines == [
        "2023-11-14 22:13 | me: A podcast about old maps.",
        "2023-12-24 | me: Mum's stollen needs 500 g of flour and a night to rest.",
        "2024-02-10 | me: Saturday: Went climbing with Iris at the boulder gym. She lent me her chalk bag.",
        "2024-02-10 | me: Groceries: - oat milk - eggs",
        "2024-02-10 | me: Groceries: ``` code stays one block ```",
    ]
    assert d["archived"] == 5 and d["segments_read"] == 3
    assert cli("import", "markdown", notes, "-w", ws)["archived"] == 0
    journal = notes / "journal" / "2024-02-10.md"
    journal.write_text(journal.read_text() + "\nCalled Dad about his birthday on March 3.\n")
    d = cli("import", "markdown", notes, "-w", ws)
    assert (d["archived"], d["skipped"]) == (1, 5)
    assert raw_units(ws)[-1][2].endswith("| 2024-02-10 | me: Groceries: Called Dad about his birthday on March 3.")


def test_show_follow_on_a_hub_note_lists_the_units_of_the_pages_it_links(tmp_path, monkeypatch):
    monkeypatch.setattr(mention_notes, "INLINE_MENTIONS", 1)  # a hub from the second mention on
    ws = tmp_path / "mem"
    cli("import", "chatgpt", CHATGPT, "-w", ws, "--me", "Ana")
    cli("import", "claude", CLAUDE, "-w", ws, "--me", "Ana")
    res = runner.invoke(app, ["show", str(ws), "notes/people/ana.md", "--follow"])
    assert res.exit_code == 0, res.output
    rule = next(line for line in res.stdout.splitlines() if "raw sources" in line)
    assert "(8 of 8 units through 4 linked notes)" in rule, res.stdout  # one page per month, four months
    shown_ids = {line.split()[1] for line in res.stdout.splitlines() if line.startswith("raw/")}
    assert shown_ids == {"chatgpt:u1-new", "chatgpt:u2", "chatgpt:u3", "chatgpt:u4", "claude:c1-m1", "claude:c1-m3",
                         "claude:c2-m1", "claude:c3-m1b"}


def test_recall_over_an_import_in_an_isolated_sandbox(tmp_path, isolated_backend):
    ws = tmp_path / "mem"
    cli("import", "claude", CLAUDE, "-w", ws)
    res = runner.invoke(app, ["recall", str(ws), "Which binoculars did Claude suggest for my dad?", "--budget", "200",
                              "--backend", isolated_backend, "--json"])
    assert res.exit_code == 0, res.output
    assert "claude:c3-m2b" in {ref for item in json.loads(res.stdout)["items"] for ref in item["refs"]}


def test_an_old_chatgpt_export_without_current_node_follows_the_newest_replies(tmp_path):
    data = json.loads(CHATGPT.read_text())
    run = next(c for c in data if c["title"] == "Plotting my running times")
    del run["current_node"]
    for conv in data:
        conv.pop("current_node", None)
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(data))
    ws = tmp_path / "mem"
    cli("import", "chatgpt", export, "-w", ws)
    ids = {u[1] for u in raw_units(ws)}
    assert {"chatgpt:a3-new", "chatgpt:a4", "chatgpt:u1-new", "chatgpt:a2"} <= ids  # the last child of each fork
    assert not {"chatgpt:a3-old", "chatgpt:u1-old"} & ids


def test_a_message_tree_with_a_cycle_is_refused(tmp_path):
    data = json.loads(CHATGPT.read_text())
    run = next(c for c in data if c["title"] == "Plotting my running times")
    run["mapping"]["u3"]["parent"] = "a4"  # a4 -> th4 -> u4 -> a3-new -> t3 -> a3-call -> u3 -> a4 ...
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(data))
    refused(["import", "chatgpt", export, "-w", tmp_path / "mem"], "the message tree has a cycle")
    assert not (tmp_path / "mem").exists()


def test_two_conversations_of_one_title_minutes_apart_stay_two_segments(tmp_path):
    """An export's conversations are whole sessions: one that starts a few minutes after another of the same
    title ("New chat") is not appended to it, as a message recorded on its own would be."""
    data = json.loads(CHATGPT.read_text())
    lisbon = next(c for c in data if c["title"] == "Moving to Lisbon")
    run = next(c for c in data if c["title"] == "Plotting my running times")
    def times(conv: dict) -> list[float]:
        return [n["message"]["create_time"] for n in conv["mapping"].values()
                if (n.get("message") or {}).get("create_time")]
    shift = max(times(lisbon)) + 300 - min(times(run))  # its first message five minutes after the other's last
    for key in ("create_time", "update_time"):
        run[key] += shift
    for node in run["mapping"].values():
        if (node.get("message") or {}).get("create_time"):
            node["message"]["create_time"] += shift
    lisbon["title"] = run["title"] = "Same title"
    export = tmp_path / "export" / "conversations.json"
    export.parent.mkdir()
    export.write_text(json.dumps(data))
    ws = tmp_path / "mem"
    d = cli("import", "chatgpt", export.parent, "-w", ws)
    assert d["archived"] == 8
    folders = {u[0] for u in raw_units(ws)}
    assert len(folders) == 2 and all(f.endswith("__same-title") for f in folders), folders
