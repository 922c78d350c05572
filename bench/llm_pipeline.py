"""The whole LLM pipeline against a real local model: `horma eval locomo` with horma, full and bm25.

Starts `horma model serve` (the bundled SmolLM2-135M-Instruct unless --model),
then runs `horma eval locomo` once per method on the first --limit questions
of the dev split (they belong to its first conversation), with that model as
the LLM manager and retriever (horma), the primary agent and the judge. The
agents use the text protocol (the server's chat format does not take tools)
and small limits, so a run finishes on a CPU. Prints one row per method:

    N_call      LLM calls per question: retrieval, plus the manager's ingest calls spread over the questions
    tok/q       model input tokens per question: manager share + retrieval + answer (the judge not counted)
    fmt err     format errors / agent steps (malformed calls, prose, empty replies), manager and retriever
    stops       how agent runs ended, counted (done, max_steps, format_errors, ...)
    s/q         wall seconds per question, ingest included
    F1, judge   the harness's answer F1 and the judge's accuracy (over the verdicts it could read)
    overflow    questions whose prompt did not fit the model's context (no answer, F1 0, no verdict)

    python bench/llm_pipeline.py --data /work/shared/data/locomo/locomo_dev.json --limit 20
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

HORMA = [sys.executable, "-c", "from horma.cli import main; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, ctx: int, model: str | None, log: Path) -> subprocess.Popen:
    cmd = [*HORMA, "model", "serve", *([model] if model else []), "--port", str(port), "--ctx", str(ctx)]
    proc = subprocess.Popen(cmd, stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"horma model serve exited ({proc.returncode}); see {log}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2).read()
            return proc
        except OSError:
            time.sleep(0.5)
    proc.terminate()
    sys.exit("horma model serve did not answer within 120 s")


def model_name(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=5) as r:
        return json.load(r)["data"][0]["id"]


def trajectories(run: Path) -> list[list[dict]]:
    out = []
    for f in sorted(run.glob("work/*/workspace/.horma/trajectories/*.jsonl")):
        out.append([json.loads(line) for line in f.read_text(encoding="utf-8").splitlines() if line.strip()])
    return out


def figures(run: Path, wall_s: float) -> dict:
    records = [json.loads(x) for x in (run / "results.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()]
    n = len(records) or 1
    manager_calls = manager_tokens = steps = bad = 0
    stops: Counter = Counter()
    for t in trajectories(run):
        start, end = t[0], t[-1] if t[-1].get("type") == "end" else {}
        stops[f"{start.get('role')}:{end.get('status', 'cut off')}"] += 1
        steps += sum(1 for r in t if r.get("type") == "step")
        bad += sum(1 for r in t if r.get("type") == "step" and r.get("fault"))
        if start.get("role") == "manager":
            manager_calls += end.get("llm_calls", 0)
            manager_tokens += end.get("input_tokens", 0)
    judged = [r["judge"] for r in records if isinstance(r.get("judge"), bool)]
    return {
        "n": len(records),
        "n_call": sum(r.get("llm_calls", 0) for r in records) / n + manager_calls / n,
        "tokens_per_q": sum(r.get("input_tokens", 0) for r in records) / n + manager_tokens / n,
        "format_error_rate": bad / steps if steps else None,
        "stops": dict(stops),
        "s_per_q": wall_s / n,
        "f1": sum(r.get("f1", 0.0) for r in records) / n,
        "judge": sum(judged) / len(judged) if judged else None,
        "judge_unreadable": sum(1 for r in records if r.get("judge") is None and not r.get("context_overflow")),
        "overflow": sum(1 for r in records if r.get("context_overflow")),
    }


def cut_conversation(data: str, sessions: int, out: Path) -> str:
    """The dev split's first conversation cut to its first ``sessions`` sessions, with the questions
    whose evidence lies in them: a smaller run of the same harness (written under --out, never the repo)."""
    conv = json.loads(Path(data).read_text(encoding="utf-8"))[0]
    keep = {f"session_{i}" for i in range(1, sessions + 1)}
    body = {k: v for k, v in conv["conversation"].items()
            if not k.startswith("session_") or k.removesuffix("_date_time") in keep}
    dias = {t["dia_id"] for k in keep for t in body.get(k, [])}
    qa = [q for q in conv["qa"] if q.get("evidence") and all(e in dias for e in q["evidence"])]
    path = out / f"locomo-first-{sessions}-sessions.json"
    path.write_text(json.dumps([{**conv, "conversation": body, "qa": qa}]), encoding="utf-8")
    return str(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default="/work/shared/data/locomo/locomo_dev.json")
    ap.add_argument("--limit", type=int, default=20, help="questions (the first ones of the first conversation)")
    ap.add_argument("--methods", default="horma,full,bm25")
    ap.add_argument("--budget", type=int, default=1500, help="context budget; keep prompts inside --ctx")
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--max-steps", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--sessions", type=int, default=None,
                    help="cut the first conversation to its first K sessions (and the questions they answer)")
    ap.add_argument("--backend", default="bwrap")
    ap.add_argument("--model", default=None, help="a GGUF file (default: the bundled SmolLM2-135M-Instruct)")
    ap.add_argument("--out", type=Path, default=Path("runs/llm-pipeline"))
    args = ap.parse_args()

    args.out.mkdir(parents=True, exist_ok=True)
    data = cut_conversation(args.data, args.sessions, args.out) if args.sessions else args.data
    config = args.out / "config.yaml"
    config.write_text(
        f"llm:\n  max_tokens: {args.max_tokens}\n  tool_protocol: text\n  timeout: 300\n  max_retries: 1\n"
        f"agent:\n  max_steps: {args.max_steps}\n  max_format_errors: 3\n", encoding="utf-8")
    port = free_port()
    server = start_server(port, args.ctx, args.model, args.out / "server.log")
    spec = f"openai:{model_name(port)}@http://127.0.0.1:{port}/v1"
    rows = {}
    try:
        for method in args.methods.split(","):
            run = args.out / method
            cmd = [*HORMA, "eval", "locomo", "--data", data, "--split", "dev", "--limit", str(args.limit),
                   "--method", method, "--budget", str(args.budget), "--llm", spec, "--judge", spec,
                   "--backend", args.backend, "--config", str(config), "--out", str(run), "--json"]
            if method == "horma":
                cmd += ["--policy", "llm"]
            t0 = time.monotonic()
            res = subprocess.run(cmd, capture_output=True, text=True)
            wall = time.monotonic() - t0
            if not (run / "results.jsonl").is_file():
                print(f"{method}: failed ({res.returncode}): {res.stderr.strip()[-500:]}", file=sys.stderr)
                continue
            rows[method] = figures(run, wall)
            print(f"{method}: {json.dumps(rows[method])}", file=sys.stderr)
    finally:
        server.terminate()
        server.wait(timeout=30)
    (args.out / "figures.json").write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print("| method | n | N_call | tok/q | fmt err | s/q | F1 | judge | overflow | agent stops |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m, r in rows.items():
        fe = "-" if r["format_error_rate"] is None else f"{r['format_error_rate']:.2f}"
        judge = "-" if r["judge"] is None else f"{r['judge']:.3f}"
        stops = ", ".join(f"{k} {v}" for k, v in sorted(r["stops"].items())) or "-"
        print(f"| {m} | {r['n']} | {r['n_call']:.1f} | {r['tokens_per_q']:,.0f} | {fe} | {r['s_per_q']:.1f} | "
              f"{r['f1']:.3f} | {judge} | {r['overflow']} | {stops} |")


if __name__ == "__main__":
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    main()
