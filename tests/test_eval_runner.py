"""The runner: records, summaries, resuming, parallel workers, and the QA loaders on fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from horma.bench.longmemeval import LongMemEvalError, load_longmemeval, parse_date
from horma.bench.qa import locomo_tasks
from horma.bench.runner import RESULTS, RunError, RunSettings, collect_task, read_results, run_tasks, summarize

FIXTURES = Path(__file__).parent / "fixtures" / "eval"
LOCOMO = FIXTURES / "locomo_mini.json"
LME = FIXTURES / "longmemeval_mini.json"
IDENTITY = {"bench": "locomo", "data": "mini"}


def settings(out: Path, method: str = "bm25", budget: int = 40) -> RunSettings:
    return RunSettings(method=method, budget=budget, out=out, retrieval_only=True)


def stable(records: list[dict]) -> list[dict]:
    """Records without wall-clock fields, in id order: what must not depend on how the run went."""
    return sorted(({k: v for k, v in r.items() if not k.endswith("_ms")} for r in records), key=lambda r: r["id"])


def test_locomo_tasks_one_per_conversation_with_stable_ids():
    tasks = locomo_tasks(str(LOCOMO), "all", (2, 4, 5))
    assert [t.id for t in tasks] == ["mini-1", "mini-2"]
    assert [len(t.segments) for t in tasks] == [3, 2]
    ids = tasks[0].instance_ids()
    assert ids == ["mini-1/q0", "mini-1/q1", "mini-1/q2", "mini-1/q3", "mini-1/q4", "mini-1/q5", "mini-1/q6"]
    adv = tasks[0].items[6]
    assert adv.abstain and adv.reference is None and adv.category == "adversarial"
    assert adv.evidence_texts == ("Congrats! I finally glazed a vase in deep blue.",)
    # the dev split is the first 7 conversations: both of these
    assert [t.id for t in locomo_tasks(str(LOCOMO), "dev")] == ["mini-1", "mini-2"]
    assert locomo_tasks(str(LOCOMO), "test") == []
    assert len(locomo_tasks(str(LOCOMO), "all", (1,))[0].items) == 1


def test_run_writes_records_and_summary(tmp_path):
    tasks = locomo_tasks(str(LOCOMO), "all")
    res = run_tasks(tasks, settings(tmp_path / "run"), IDENTITY)
    assert res.ran == 12 and res.resumed == 0 and not res.errors
    rec = next(r for r in res.records if r["id"] == "mini-1/q4")  # "When did Nora adopt Pebble?"
    assert rec["evidence"] == ["D2:4"] and "D2:4" in rec["refs"]
    assert rec["evidence_recall"] == 1.0 and 0 < rec["jaccard"] <= 1 and rec["context_tokens"] <= 40
    assert "answer" not in rec and "f1" not in rec
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["overall"]["n"] == 12
    assert set(summary["categories"]) == {"temporal", "single-hop", "adversarial"}
    assert summary["categories"]["temporal"]["n"] == 3
    o = summary["overall"]
    assert o["retrieval_ms_p50"] <= o["retrieval_ms_p95"] and 0 <= o["evidence_recall"] <= 1
    assert summary["run"]["method"] == "bm25" and summary["run"]["budget"] == 40
    run_info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert run_info["bench"] == "locomo" and run_info["retrieval_only"] is True


def test_resumed_run_equals_uninterrupted_run(tmp_path):
    tasks = locomo_tasks(str(LOCOMO), "all")
    whole = run_tasks(tasks, settings(tmp_path / "whole"), IDENTITY)

    part = tmp_path / "part"
    first = run_tasks(tasks, settings(part), IDENTITY, limit=5)
    assert first.ran == 5
    # a kill mid-write leaves a torn last line: it is cut off and that instance runs again
    with (part / RESULTS).open("a") as fh:
        fh.write('{"id": "mini-1/q5", "task": "mini-1", "context_')
    second = run_tasks(tasks, settings(part), IDENTITY)
    assert second.resumed == 5 and second.ran == 7
    assert stable(second.records) == stable(whole.records)
    assert len(read_results(part / RESULTS)) == 12
    for key in ("evidence_recall", "jaccard", "context_tokens"):
        assert second.summary["overall"][key] == pytest.approx(whole.summary["overall"][key])
    # a third run has nothing left to do
    third = run_tasks(tasks, settings(part), IDENTITY)
    assert third.ran == 0 and third.resumed == 12


def test_parallel_workers_give_the_same_records(tmp_path):
    tasks = locomo_tasks(str(LOCOMO), "all")
    serial = run_tasks(tasks, settings(tmp_path / "serial"), IDENTITY)
    parallel = run_tasks(tasks, settings(tmp_path / "parallel"), IDENTITY, workers=2)
    assert stable(parallel.records) == stable(serial.records)


def test_collect_task_is_the_executor_neutral_unit_of_work(tmp_path):
    task = locomo_tasks(str(LOCOMO), "all")[1]
    records = collect_task(task, settings(tmp_path), ["mini-2/q1", "mini-2/q4"])
    assert [r["id"] for r in records] == ["mini-2/q1", "mini-2/q4"]


def test_resuming_into_another_runs_folder_is_refused(tmp_path):
    tasks = locomo_tasks(str(LOCOMO), "all")
    run_tasks(tasks, settings(tmp_path, budget=40), IDENTITY, limit=1)
    with pytest.raises(RunError, match="budget=40, not 80"):
        run_tasks(tasks, settings(tmp_path, budget=80), IDENTITY)


def test_a_failing_task_is_reported_and_the_others_still_run(tmp_path):
    tasks = locomo_tasks(str(LOCOMO), "all")
    res = run_tasks(tasks, settings(tmp_path, method="no_such_pkg:Method"), IDENTITY)
    assert len(res.errors) == 2 and "cannot import" in res.errors[0]["error"]
    assert (tmp_path / "errors.jsonl").is_file() and res.summary["errors"] == 2


@pytest.mark.parametrize("workers, limit, message", [(0, None, "--workers"), (1, 0, "--limit")])
def test_bad_run_options(tmp_path, workers, limit, message):
    with pytest.raises(RunError, match=message):
        run_tasks([], settings(tmp_path), IDENTITY, workers=workers, limit=limit)


def test_summary_rates_booleans_and_skips_missing_values():
    recs = [{"id": "a", "category": "x", "judge": True, "f1": 1.0, "evidence_recall": None},
            {"id": "b", "category": "x", "judge": False, "f1": 0.5, "evidence_recall": 0.5},
            {"id": "c", "category": "y", "judge": None, "f1": 0.0, "answer_ms": 10.0}]
    s = summarize(recs, {"bench": "t"})
    assert s["overall"]["judge"] == 0.5 and s["overall"]["f1"] == 0.5 and s["overall"]["evidence_recall"] == 0.5
    assert s["categories"]["y"] == {"n": 1, "f1": 0.0, "answer_ms": 10.0, "answer_ms_p50": 10.0, "answer_ms_p95": 10.0}


# -- LongMemEval -------------------------------------------------------------------
def test_longmemeval_default_types_drop_multi_session():
    tasks = load_longmemeval(LME)
    assert [t.id for t in tasks] == ["q-user-1", "q-ku-1", "q-temp-1_abs"]
    user = tasks[0]
    assert [s.time for s in user.segments] == ["2023-05-01 09:12", "2023-05-14 20:40", "2023-06-02 07:05"]
    assert user.segments[1].units[0].id == "s-b:0" and user.segments[1].units[0].actor == "user"
    q = user.items[0]
    assert q.evidence == ("s-b:0",) and q.asked == "2023-06-10 18:02" and not q.abstain
    assert tasks[2].items[0].abstain and tasks[2].items[0].evidence == ()
    assert [t.id for t in load_longmemeval(LME, ["multi-session"])] == ["q-multi-1"]


def test_longmemeval_scoring_abstention_and_f1():
    tasks = load_longmemeval(LME)
    assert tasks[0].items[0].f1("a border collie") == 1.0
    assert tasks[2].items[0].f1("Not mentioned in memory.") == 1.0
    assert tasks[2].items[0].f1("12 days") == 0.0


def test_longmemeval_runs_one_memory_per_question(tmp_path):
    res = run_tasks(load_longmemeval(LME), settings(tmp_path, budget=50), {"bench": "longmemeval"})
    rec = {r["id"]: r for r in res.records}
    assert rec["q-user-1"]["refs"][0] == "s-b:0" and rec["q-user-1"]["evidence_recall"] == 1.0
    assert rec["q-temp-1_abs"]["evidence_recall"] is None
    assert set(res.summary["categories"]) == {"single-session-user", "knowledge-update", "temporal-reasoning"}


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d[0].pop("haystack_dates"), "question q-user-1: missing field 'haystack_dates'"),
    (lambda d: d[0].update(question_date="yesterday"), "question_date: unrecognised date"),
    (lambda d: d[0]["haystack_dates"].pop(), "differ in length"),
    (lambda d: d[1].update(question_type="vibes"), "unknown question_type 'vibes'"),
    (lambda d: d.append(dict(d[0])), "appears twice"),
])
def test_longmemeval_bad_files_name_the_problem(tmp_path, mutate, message):
    data = json.loads(LME.read_text())
    mutate(data)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data))
    with pytest.raises(LongMemEvalError, match=message):
        load_longmemeval(p)


def test_longmemeval_truncated_file(tmp_path):
    p = tmp_path / "cut.json"
    p.write_text(LME.read_text()[:500])
    with pytest.raises(LongMemEvalError, match="not valid JSON"):
        load_longmemeval(p)


def test_parse_date():
    assert parse_date("2023/05/20 (Sat) 02:21") == "2023-05-20 02:21"
    with pytest.raises(ValueError):
        parse_date("20 May 2023")
