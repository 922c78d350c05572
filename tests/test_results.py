"""The result types round-trip: a context and its items, an answer, a record's result, a flat baseline's context."""

from __future__ import annotations

from horma.agents.manager import RecordResult
from horma.agents.primary import Answer
from horma.bench.flat import fill, render_turn
from horma.context import Context, ContextItem, Recall
from horma.core.text import count_tokens
from horma.llm.accounting import Cost
from horma.record_contract import Conflict
from horma.workspace import Unit, Workspace

UNITS = [
    Unit("D1:1", "2023-05-08 13:56", "Caroline", "I went to the LGBTQ support group yesterday."),
    Unit("D1:2", "2023-05-08 13:57", "Melanie", "That sounds powerful! How was it?"),
    Unit("D1:3", "2023-05-08 13:58", "Caroline", "Inspiring. I want to study counseling."),
]


def _context(tmp_path) -> Context:
    ws = Workspace.init(tmp_path / "ws")
    with ws.writer():
        seg = ws.archive(UNITS, "session 1")
    ctx = Context("what did Caroline do?", 200, ws, asked="2023-05-09")
    assert ctx.select(seg, 1, 1, score=2.5, why="hsearch rank 1").selected
    assert ctx.select(seg, 3, 3).selected
    return ctx


def test_a_context_and_its_items_round_trip(tmp_path):
    ctx = _context(tmp_path)
    cost = Cost(input_tokens=10, output_tokens=2, llm_calls=1, sandbox_commands=3, wall_ms=12.5, cost_usd=0.25)
    got = ctx.result(steps=4, trace=".horma/trajectories/x.jsonl", stop="done", faults={"bad_json": 1}, cost=cost)
    assert (got.query, got.text, got.tokens, got.budget, got.asked) == (ctx.query, ctx.text, ctx.tokens, 200,
                                                                        "2023-05-09")
    assert got.refs == ctx.refs == ["D1:1", "D1:3"]
    first, second = got.items
    assert (first.start, first.end, first.refs, first.score, first.why) == (1, 1, ["D1:1"], 2.5, "hsearch rank 1")
    assert (second.refs, second.score, second.why) == (["D1:3"], None, None)
    assert first.tokens + second.tokens == got.tokens == count_tokens(got.text)  # the header is paid by the first

    assert Recall.model_validate(got.model_dump()) == got
    assert ContextItem.model_validate(first.model_dump()) == first
    data = got.as_dict()  # the JSON shape: the text as "context", the derived refs, the cost as Cost.as_dict()
    assert data["context"] == ctx.text and "text" not in data and data["refs"] == ["D1:1", "D1:3"]
    assert data["cost"] == cost.as_dict() and data["items"][0] == first.model_dump()
    assert Recall.model_validate(data) == got
    assert Recall.model_validate_json(got.model_dump_json(by_alias=True)) == got
    assert ctx.as_dict() == ctx.result().as_dict()


def test_an_answer_and_a_record_result_round_trip(tmp_path):
    ctx = _context(tmp_path).result(cost=Cost(sandbox_commands=2, wall_ms=3.0))
    reply = Answer(question="what did Caroline do?", text="She went to a support group.", context=ctx,
                   cost=ctx.cost + Cost(input_tokens=50, output_tokens=7, llm_calls=1, wall_ms=4.0, cost_usd=None))
    data = reply.as_dict()
    assert list(data) == ["question", "answer", "cost", "context"] and data["cost"]["cost_usd"] is None
    assert data["context"]["context"] == ctx.text
    assert Answer.model_validate(data) == reply and Answer.model_validate(reply.model_dump()) == reply

    sent = Unit("D1:2", "2023-05-08 13:57", "Melanie", "Something else.")
    done = RecordResult(segment="raw/x/units.log", archived=1, skipped=2, organized=["raw/x/units.log"],
                        cost=Cost(sandbox_commands=1), archived_ids=["D1:1"], unchanged=["D1:3"],
                        conflicts=[Conflict("D1:2", ("text",), UNITS[1], sent)])
    assert RecordResult.model_validate(done.model_dump()) == done
    assert done.as_dict()["ids"] == {"archived": ["D1:1"], "unchanged": ["D1:3"], "conflict": ["D1:2"]}


def test_a_flat_baseline_context_is_the_same_type():
    order = [2, 0, 1]
    scores = [0.5, 0.1, 0.9]
    got = fill(UNITS, order, 40, scores=scores, method="bm25")
    assert isinstance(got, Recall)
    assert got.refs == ["D1:1", "D1:3"]  # taken by rank while they fit (D1:2 did not), shown in conversation order
    assert [(i.score, i.why, i.path) for i in got.items] == [(0.5, "bm25 rank 2", None), (0.9, "bm25 rank 1", None)]
    assert got.text == "\n".join(render_turn(UNITS[i]) for i in (0, 2))
    assert got.tokens == count_tokens(got.text) == sum(i.tokens for i in got.items) <= 40
    assert Recall.model_validate(got.as_dict()) == got
