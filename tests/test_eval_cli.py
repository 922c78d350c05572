"""`horma eval` as a user runs it: retrieval-only runs, answering and judging through loopback servers, bad input."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from loopback import LoopbackServer, call, say  # tests/ is on sys.path under pytest
from typer.testing import CliRunner

from horma.cli import app

runner = CliRunner()
FIXTURES = Path(__file__).parent / "fixtures" / "eval"
LOCOMO = FIXTURES / "locomo_mini.json"
LME = FIXTURES / "longmemeval_mini.json"


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory, monkeypatch):
    """Only horma's defaults: no user config, no keys, no HORMA_* settings."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg")))
    for name in list(os.environ):
        if name.startswith("HORMA_") or name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
            monkeypatch.delenv(name)


def run(*args: str):
    return runner.invoke(app, ["eval", *args], catch_exceptions=False)


def test_locomo_retrieval_only_prints_the_summary_and_writes_results_and_plot(tmp_path):
    out = tmp_path / "runs" / "locomo-bm25"
    r = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "bm25", "--budget", "60",
            "--retrieval-only", "--out", str(out))
    assert r.exit_code == 0, r.output
    assert "locomo · bm25 · budget 60" in r.output and "overall" in r.output and "recall" in r.output
    assert "12 run now, 0 resumed" in r.output
    lines = (out / "results.jsonl").read_text().splitlines()
    assert len(lines) == 12
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["n"] == 12 and summary["run"]["categories"] == [2, 4, 5]
    assert (out / "score_vs_tokens.png").stat().st_size > 1000
    # a sibling run of another method joins the same plot; re-running resumes and runs nothing
    r2 = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "window", "--budget", "60",
             "--retrieval-only", "--out", str(out.parent / "locomo-window"), "--json")
    assert r2.exit_code == 0
    data = json.loads(r2.stdout)
    assert data["overall"]["n"] == 12 and data["plots"][0].endswith("score_vs_tokens.png")
    r3 = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "bm25", "--budget", "60",
             "--retrieval-only", "--out", str(out))
    assert "0 run now, 12 resumed" in r3.output
    assert len((out / "results.jsonl").read_text().splitlines()) == 12
    assert run("plot", str(out)).exit_code == 0


def test_locomo_answers_and_judges_through_loopback_models(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    answers = [say("28 February 2023"), say("Rye sourdough bread."), say("Porto")]
    verdicts = [say('{"reasoning": "same date", "label": "CORRECT"}'),
                say('```json\n{"reasoning": "same bread", "label": "CORRECT"}\n```'),
                say("The gold answer is Lisbon, so this is WRONG.")]
    with LoopbackServer("openai", answers) as primary, LoopbackServer("anthropic", verdicts) as judge:
        r = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "bm25", "--budget", "80",
                "--limit", "3", "--out", str(tmp_path / "run"),
                "--llm", f"openai:test-model@{primary.base_url}", "--judge", f"anthropic:judge@{judge.base_url}")
        assert r.exit_code == 0, r.output
        prompt = primary.requests[0].body["messages"][0]["content"]
        judged = judge.requests[2].body["messages"][0]["content"][0]["text"]  # anthropic: content blocks
    assert "When did Nora start pottery classes?" in prompt and "pottery classes at the community studio" in prompt
    assert "Gold answer: Lisbon" in judged and "Generated answer: Porto" in judged
    recs = {rec["id"]: rec for rec in map(json.loads, (tmp_path / "run" / "results.jsonl").read_text().splitlines())}
    assert recs["mini-1/q0"]["answer"] == "28 February 2023" and recs["mini-1/q0"]["f1"] == 1.0
    assert recs["mini-1/q1"]["f1"] == pytest.approx(0.8) and recs["mini-1/q2"]["f1"] == 0.0
    assert [recs[f"mini-1/q{i}"]["judge"] for i in range(3)] == [True, True, False]
    # input tokens are what the provider reported for the answer call (retrieval used no model)
    assert all(rec["input_tokens"] > 0 and rec["llm_calls"] == 0 for rec in recs.values())
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["overall"]["judge"] == pytest.approx(2 / 3)
    assert summary["overall"]["f1"] == pytest.approx(0.6)
    assert "judge" in r.output and "F1" in r.output


def test_answering_without_a_usable_model_fails_in_one_line(tmp_path):
    r = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "bm25", "--out", str(tmp_path))
    assert r.exit_code != 0
    assert "--retrieval-only" in r.output and len(r.output.strip().splitlines()) <= 3
    assert not (tmp_path / "results.jsonl").exists()


def test_longmemeval_runs_on_its_fixture(tmp_path):
    r = run("longmemeval", "--data", str(LME), "--method", "bm25", "--retrieval-only", "--out", str(tmp_path), "--json")
    assert r.exit_code == 0, r.output
    summary = json.loads(r.stdout)
    assert summary["overall"]["n"] == 3 and summary["run"]["budget"] == 50_000
    assert "multi-session" not in summary["categories"]
    r2 = run("longmemeval", "--data", str(LME), "--types", "multi-session", "--method", "full", "--retrieval-only",
             "--out", str(tmp_path / "multi"), "--json")
    assert json.loads(r2.stdout)["overall"]["n"] == 1


@pytest.mark.parametrize("args, message", [
    (["locomo", "--data", "nope.json", "--retrieval-only"], "nope.json: no such file"),
    (["locomo", "--data", str(LOCOMO), "--categories", "2,x", "--retrieval-only"], "comma-separated list of integers"),
    (["locomo", "--data", str(LOCOMO), "--categories", "7", "--retrieval-only"], "unknown LoCoMo category 7"),
    (["locomo", "--data", str(LOCOMO), "--split", "train", "--retrieval-only"], "unknown split 'train'"),
    (["locomo", "--data", str(LOCOMO), "--split", "test", "--retrieval-only"], "no questions"),
    (["locomo", "--data", str(LOCOMO), "--budget", "0", "--retrieval-only"], "--budget must be a positive"),
    (["locomo", "--data", str(LOCOMO), "--method", "magic", "--retrieval-only"], "unknown method 'magic'"),
    (["locomo", "--data", str(LOCOMO), "--workers", "0", "--retrieval-only"], "--workers must be at least 1"),
    (["longmemeval", "--data", str(LME), "--types", "gossip", "--retrieval-only"], "unknown question type 'gossip'"),
])
def test_bad_input_is_one_clear_error(tmp_path, args, message):
    r = run(*args, "--out", str(tmp_path / "out"))
    assert r.exit_code != 0
    assert message in r.output
    assert "Traceback" not in r.output
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_truncated_dataset_is_refused(tmp_path):
    cut = tmp_path / "cut.json"
    cut.write_text(LOCOMO.read_text()[:700])
    r = run("locomo", "--data", str(cut), "--retrieval-only", "--out", str(tmp_path / "out"))
    assert r.exit_code != 0 and "not valid JSON" in r.output


def test_every_command_documents_an_example():
    for cmd in ("locomo", "longmemeval", "alfworld", "plot"):
        r = runner.invoke(app, ["eval", cmd, "--help"])
        assert r.exit_code == 0 and "Example:" in r.output


def test_horma_llm_policies_run_through_a_loopback_model(tmp_path, monkeypatch):
    """--policy llm: the manager and the retriever are the agent loop on a model built from the config."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    raw = "raw/2023-03-03T10-15__mini-1-session-1/units.log"
    script = [call("done", summary="session 1")] + [call("done", summary="later session")] * 2 + [
        call("bash", command="grep -rn pottery raw"),
        call("select", path=raw, start=1, end=1),
        call("done"),
    ]
    with LoopbackServer("openai", script) as srv:
        r = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "horma", "--policy", "llm",
                "--memory-llm", f"openai:navigator@{srv.base_url}", "--backend", "local", "--unsafe-local",
                "--retrieval-only", "--budget", "100", "--limit", "1", "--out", str(tmp_path), "--json")
        assert r.exit_code == 0, r.output
        assert len(srv.requests) == 6
    [rec] = map(json.loads, (tmp_path / "results.jsonl").read_text().splitlines())
    assert rec["refs"] == ["D1:1"] and rec["evidence_recall"] == 1.0 and rec["jaccard"] == 1.0
    assert rec["llm_calls"] == 3 and rec["steps"] == 3
    # the retriever's model input counts toward the question's input tokens
    assert rec["input_tokens"] > rec["context_tokens"] > 0


def test_llm_policies_refuse_the_local_sandbox_unless_told(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    r = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "horma", "--policy", "llm",
            "--memory-llm", "openai:navigator@http://127.0.0.1:9/v1", "--backend", "local",
            "--retrieval-only", "--limit", "1", "--out", str(tmp_path))
    assert r.exit_code != 0 and "--unsafe-local" in r.output
    assert not (tmp_path / "work" / "mini-1" / "workspace" / "raw").exists() or not any(
        (tmp_path / "work" / "mini-1" / "workspace" / "raw").iterdir())


def trajectory_starts(workspace: Path) -> dict[str, set]:
    """For each agent role, the model specs its runs' trajectories name (None: no LLM drove the run)."""
    starts: dict[str, set] = {}
    for path in (workspace / ".horma" / "trajectories").glob("*.jsonl"):
        start = json.loads(path.read_text().splitlines()[0])
        starts.setdefault(start["role"], set()).add(start.get("llm"))
    return starts


def tool_names(request) -> set[str]:
    return {t["function"]["name"] for t in request.body["tools"]}


def test_a_trained_retriever_runs_over_heuristic_notes(tmp_path, monkeypatch):
    """--retriever llm alone: the model only retrieves; the heuristic manager wrote the notes without it."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    raw = "raw/2023-03-03T10-15__mini-1-session-1/units.log"
    script = [call("bash", command="grep -rn pottery raw"), call("select", path=raw, start=1, end=1), call("done")]
    with LoopbackServer("openai", script) as srv:
        r = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "horma", "--retriever", "llm",
                "--memory-llm", f"openai:ckpt@{srv.base_url}", "--backend", "local", "--unsafe-local",
                "--retrieval-only", "--budget", "100", "--limit", "1", "--out", str(tmp_path), "--json")
        assert r.exit_code == 0, r.output
        requests = list(srv.requests)
        spec = f"openai:ckpt@{srv.base_url}"
    # every model request was the retriever's (its tools), for the question; none wrote notes
    assert len(requests) == 3
    assert all(tool_names(q) == {"bash", "select", "done"} for q in requests)
    assert "When did Nora start pottery classes?" in json.dumps(requests[0].body["messages"])
    ws = tmp_path / "work" / "mini-1" / "workspace"
    assert trajectory_starts(ws) == {"manager": {None}, "retriever": {spec}}
    organized = [json.loads(line) for line in (ws / ".horma" / "ingest.log").read_text().splitlines()]
    assert {rec["policy"] for rec in organized if rec["event"] == "organized"} == {"heuristic"}
    assert any((ws / "notes").rglob("*.md"))
    [rec] = map(json.loads, (tmp_path / "results.jsonl").read_text().splitlines())
    assert rec["refs"] == ["D1:1"] and rec["llm_calls"] == 3
    run_info = json.loads(r.stdout)["run"]
    assert (run_info["manager"], run_info["retriever"], run_info["memory_llm"]) == ("heuristic", "llm", spec)
    assert "policy" not in run_info


def test_an_llm_manager_with_the_heuristic_retriever(tmp_path, monkeypatch):
    """--manager llm --retriever heuristic: the model writes the notes; recall makes no model call."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    script = [call("done", summary="session 1")] + [call("done", summary="later session")] * 2
    with LoopbackServer("openai", script) as srv:
        r = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "horma", "--manager", "llm",
                "--retriever", "heuristic", "--memory-llm", f"openai:writer@{srv.base_url}", "--backend", "local",
                "--unsafe-local", "--retrieval-only", "--budget", "100", "--limit", "1", "--out", str(tmp_path),
                "--json")
        assert r.exit_code == 0, r.output
        requests = list(srv.requests)
        spec = f"openai:writer@{srv.base_url}"
    assert len(requests) == 3 and all(tool_names(q) == {"bash", "done"} for q in requests)
    assert trajectory_starts(tmp_path / "work" / "mini-1" / "workspace") == {"manager": {spec}, "retriever": {None}}
    [rec] = map(json.loads, (tmp_path / "results.jsonl").read_text().splitlines())
    assert rec["llm_calls"] == 0
    assert json.loads(r.stdout)["run"]["manager"] == "llm" and json.loads(r.stdout)["run"]["retriever"] == "heuristic"


@pytest.mark.parametrize("args, message", [
    (["--policy", "psychic"], "--policy must be heuristic or llm, got 'psychic'"),
    (["--manager", "psychic"], "unknown --manager 'psychic'; choose one of heuristic, llm"),
    (["--retriever", "smart"], "unknown --retriever 'smart'; choose one of heuristic, llm"),
    (["--policy", "llm", "--retriever", "heuristic"],
     "--policy llm sets the retriever too, so it conflicts with --retriever heuristic"),
    (["--policy", "heuristic", "--manager", "llm"],
     "--policy heuristic sets the manager too, so it conflicts with --manager llm"),
    (["--method", "bm25", "--retriever", "llm"],
     "method bm25 has no retriever policy, so the llm retriever does not apply"),
    (["--method", "window", "--policy", "llm"], "method window has no manager policy"),
])
def test_bad_policy_choices_are_one_usage_error(tmp_path, args, message):
    r = run("locomo", "--data", str(LOCOMO), "--split", "all", "--retrieval-only", "--backend", "local",
            *args, "--out", str(tmp_path / "out"))
    assert r.exit_code == 2
    [line] = r.output.strip().splitlines()
    assert line.startswith("error: ") and message in line
    assert not (tmp_path / "out").exists()


def test_policy_shorthand_agrees_with_the_roles_it_sets(tmp_path, monkeypatch):
    """--policy P with --manager P / --retriever P is no conflict; the run records both roles."""
    r = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "horma", "--policy", "heuristic",
            "--retriever", "heuristic", "--backend", "local", "--retrieval-only", "--limit", "1",
            "--out", str(tmp_path), "--json")
    assert r.exit_code == 0, r.output
    run_info = json.loads(r.stdout)["run"]
    assert (run_info["manager"], run_info["retriever"], run_info["memory_llm"]) == ("heuristic", "heuristic", None)


@pytest.mark.parametrize("role", ["manager", "retriever"])
def test_a_missing_memory_model_names_the_policy_that_needs_it(tmp_path, role):
    r = run("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "horma", f"--{role}", "llm",
            "--backend", "local", "--unsafe-local", "--retrieval-only", "--out", str(tmp_path / "out"))
    assert r.exit_code == 6  # provider: the model cannot be used
    [line] = r.output.strip().splitlines()
    assert line.startswith(f"error: the llm {role} needs a model (--memory-llm SPEC): ") and "API key" in line
    assert not (tmp_path / "out").exists()


def test_a_run_started_with_one_policy_resumes_as_both_roles(tmp_path):
    """run.json from before --manager/--retriever ("policy": P) still resumes under --policy P."""
    args = ("locomo", "--data", str(LOCOMO), "--split", "all", "--method", "bm25", "--retrieval-only",
            "--limit", "2", "--out", str(tmp_path))
    assert run(*args).exit_code == 0
    info = json.loads((tmp_path / "run.json").read_text())
    info["policy"] = info.pop("manager")
    del info["retriever"]
    (tmp_path / "run.json").write_text(json.dumps(info))
    r = run(*args)
    assert r.exit_code == 0, r.output
    assert "0 run now, 2 resumed" in r.output
    r = run(*args[:-2], "--limit", "3", "--out", str(tmp_path))
    assert "1 run now, 2 resumed" in r.output


def test_plot_labels_name_the_policies_of_a_run():
    from horma.bench.plots import label

    def run_of(**policies):
        return {"run": {"method": "horma", "budget": 100, **policies}}

    assert label(run_of(manager="heuristic", retriever="heuristic")) == "horma @100"
    assert label(run_of(manager="llm", retriever="llm")) == "horma (llm) @100"
    assert label(run_of(manager="heuristic", retriever="llm")) == "horma (heuristic manager, llm retriever) @100"
    assert label(run_of(policy="llm")) == "horma (llm) @100"  # a summary written before the roles were apart
