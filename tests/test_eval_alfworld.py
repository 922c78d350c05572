"""ALFWorld through the real engines, on the project's own games (examples/alfworld/)."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest
from loopback import LoopbackServer, say  # tests/ is on sys.path under pytest
from typer.testing import CliRunner

from horma.bench.alfworld import TASK_TYPES, AlfworldError, find_games, parse_action, split_intro
from horma.cli import app
from horma.resources import EXAMPLES
from horma.workspace import Workspace

GAMES = EXAMPLES / "alfworld"
HAS_ALFWORLD = all(importlib.util.find_spec(m) for m in ("alfworld", "textworld", "fast_downward"))
needs_alfworld = pytest.mark.skipif(not HAS_ALFWORLD, reason="needs the alfworld extra: pip install -e '.[alfworld]'")
runner = CliRunner()


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg")))
    for name in list(os.environ):
        if name.startswith("HORMA_") or name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
            monkeypatch.delenv(name)


def results(out: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


def test_the_project_games_cover_the_six_task_types():
    games = find_games(GAMES)
    assert sorted(g.task_type for g in games) == sorted(TASK_TYPES)
    assert [g.id for g in find_games(GAMES, split="Mug")] == ["pick_clean_then_place_in_recep-Mug-None-Shelf-2"]
    with pytest.raises(AlfworldError, match="no ALFWorld games"):
        find_games(GAMES, split="valid_unseen")


def test_intro_and_action_parsing():
    goal, obs = split_intro("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in a room.\n\n"
                            "Your task is to: put a mug in shelf.")
    assert goal == "put a mug in shelf" and obs == "You are in a room."
    commands = ["go to shelf 1", "open cabinet 1"]
    assert parse_action("I should open it.\nACTION: Open Cabinet 1", commands) == "open cabinet 1"
    assert parse_action("`go to shelf 1`", commands) == "go to shelf 1"
    assert parse_action("dance", commands) == "dance"  # the engine answers "Nothing happens."


@needs_alfworld
def test_expert_wins_every_game_and_a_rerun_resumes(tmp_path):
    out = tmp_path / "expert"
    args = ["eval", "alfworld", "--games", str(GAMES), "--agent", "expert", "--method", "full", "--out", str(out)]
    r = runner.invoke(app, args, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    recs = results(out)
    assert len(recs) == 6 and all(rec["won"] for rec in recs.values())
    for rec in recs.values():
        assert rec["steps"] == rec["expert_steps"] == len(rec["actions"]) <= 50
        assert rec["tokens_per_step"] > rec["context_tokens"] > 0
    two = recs["pick_two_obj_and_place-CD-None-Shelf-6"]["actions"]
    assert sum(a.startswith("move cd") for a in two) == 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["won"] == 1.0 and set(summary["categories"]) == set(TASK_TYPES)
    assert (out / "steps_vs_tokens.png").is_file() and "success" in r.output
    again = runner.invoke(app, args, catch_exceptions=False)
    assert "0 run now, 6 resumed" in again.output


@needs_alfworld
def test_horma_memory_records_every_step_and_recalls_under_the_limit(tmp_path):
    out = tmp_path / "horma"
    r = runner.invoke(app, ["eval", "alfworld", "--games", str(GAMES), "--split", "Apple", "--agent", "expert",
                            "--method", "horma", "--backend", "local", "--budget", "1950", "--out", str(out)],
                      catch_exceptions=False)
    assert r.exit_code == 0, r.output
    [rec] = results(out).values()
    assert rec["won"] and 0 < rec["context_tokens"] <= 1950
    [episode_dir] = (out / "work").iterdir()  # one private folder per episode
    ws = Workspace.open(episode_dir / "workspace")
    ids = [line.unit.id for line in ws.iter_raw()]
    assert ids == [f"step{n}" for n in range(rec["steps"] + 1)]  # the intro, then one unit per step, in order
    assert any("take apple 1 from fridge 1" in line.unit.text for line in ws.iter_raw())
    assert ws.note_files()


@needs_alfworld
def test_llm_agent_acts_through_a_loopback_model(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    plan = ["go to fridge 1", "open fridge 1", "take apple 1 from fridge 1", "go to diningtable 1",
            "move apple 1 to diningtable 1"]
    script = [say("ACTION: look around"), *(say(f"Thinking.\nACTION: {a}") for a in plan)]
    with LoopbackServer("openai", script) as srv:
        r = runner.invoke(app, ["eval", "alfworld", "--games", str(GAMES), "--split", "Apple", "--method", "window",
                                "--llm", f"openai:actor@{srv.base_url}", "--out", str(tmp_path)],
                          catch_exceptions=False)
        assert r.exit_code == 0, r.output
        first = srv.requests[0].body["messages"][0]["content"]
        last = srv.requests[-1].body["messages"][0]["content"]
    [rec] = results(tmp_path).values()
    assert rec["won"] and rec["steps"] == 6 and rec["actions"][0] == "look around"
    assert "put a apple in diningtable" in first or "apple" in first.split("## Goal")[1].split("##")[0]
    assert "- go to fridge 1" in first  # the valid commands are listed
    assert "> look around | Nothing happens." in last  # the memory window carries earlier steps
    assert rec["input_tokens"] > 0 and rec["tokens_per_step"] == pytest.approx(rec["input_tokens"] / 6)


def test_missing_games_folder_is_one_clear_error(tmp_path):
    r = runner.invoke(app, ["eval", "alfworld", "--games", str(tmp_path / "none"), "--agent", "expert"])
    assert r.exit_code != 0
    assert ("no such folder of games" in r.output) or ("pip install -e '.[alfworld]'" in r.output)
