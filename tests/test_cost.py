"""Per-call cost: what a record, recall and ask cost, measured around the call and returned with its result."""

from __future__ import annotations

from pathlib import Path

from conftest import SAMPLE_UNITS
from loopback import LoopbackServer, say

from horma import Memory
from horma.llm import make_llm


def test_record_recall_ask_report_their_cost(tmp_path: Path) -> None:
    with LoopbackServer("anthropic", [say("She went to a support group.")]) as srv:
        llm = make_llm(f"anthropic:claude-haiku-4-5@{srv.base_url}", api_key="sk-test")
        with Memory(tmp_path / "ws", sandbox="local", llm=llm) as mem:
            rec = mem.record(SAMPLE_UNITS, slug="s1")
            assert rec.cost.llm_calls == 0 and rec.cost.cost_usd == 0.0 and rec.cost.wall_ms > 0
            assert rec.as_dict()["cost"]["sandbox_commands"] == 0  # the heuristic manager writes in code

            ctx = mem.recall("Where did Caroline go?", 200)
            assert ctx.cost.sandbox_commands >= 2 and ctx.cost.llm_calls == 0
            assert ctx.as_dict()["cost"] == ctx.cost.as_dict()

            reply = mem.ask("Where did Caroline go?", 200)
    assert len(srv.requests) == 1  # one answer call; the heuristic manager and retriever use no model
    cost = reply.cost
    assert cost.llm_calls == 1
    assert (cost.input_tokens, cost.output_tokens) == (llm.stats.input_tokens, llm.stats.output_tokens)  # its one call
    assert cost.input_tokens > 0 and cost.output_tokens > 0
    assert abs(cost.cost_usd - (cost.input_tokens * 1.0 + cost.output_tokens * 5.0) / 1e6) < 1e-12
    assert cost.sandbox_commands >= 2  # the ask's own recall
    assert reply.as_dict()["cost"]["llm_calls"] == 1


def test_an_unpriced_model_has_unknown_cost(tmp_path: Path) -> None:
    with LoopbackServer("openai", [say("a group")]) as srv:
        llm = make_llm(f"openai:local-model@{srv.base_url}", api_key="sk-test")
        with Memory(tmp_path / "ws", sandbox="local", llm=llm) as mem:
            mem.record(SAMPLE_UNITS, slug="s1")
            reply = mem.ask("Where did Caroline go?", 200)
    assert reply.cost.llm_calls == 1 and reply.cost.cost_usd is None
    assert reply.as_dict()["cost"]["cost_usd"] is None
