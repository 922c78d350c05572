"""The validation gate (horma/units.py): what it accepts reads back from raw/ identical, what it refuses changes
nothing."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import horma
from horma.bench.locomo import DatasetError, parse_samples
from horma.bench.longmemeval import LongMemEvalError, parse_item
from horma.config import ConfigError
from horma.llm import LLMError
from horma.record_contract import accept
from horma.sandbox import SandboxError
from horma.sources.jsonl import load_jsonl
from horma.units import UnitError, check_name, check_unit, check_units, normalize_time
from horma.workspace import Unit, Workspace, WorkspaceError
from tests.wsstate import assert_one_error_line, cli, tree_state

# every character str.splitlines() splits on, control characters, a lone surrogate, bidi overrides
NASTY = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00\x1b\x07\x7f\x9b\ud800\udfff\u202e\t |:"
any_char = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())
field_text = st.text(st.one_of(any_char, st.sampled_from(NASTY)), max_size=30)
times = st.one_of(
    st.datetimes().map(lambda t: t.isoformat(sep=st_sep(t), timespec="seconds")),
    st.datetimes().map(lambda t: t.strftime("%Y%m%dT%H%M")),
    st.dates().map(lambda d: d.isoformat()),
    st.sampled_from(["2023-05-08 13:56", "20230508T1356", "2023-05-08T13:56:00+02:00", "yesterday", "",
                     "2023-05-08\nX | 2023 | a: forged", "2023-13-01", " 2023-05-08 "]),
    field_text,
)


def st_sep(t) -> str:
    return "T" if t.minute % 2 else " "


units = st.builds(Unit, id=st.one_of(st.from_regex(r"[A-Za-z0-9:_.-]{1,12}", fullmatch=True), field_text),
                  time=times, actor=field_text, text=field_text)
_serial = itertools.count()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(units, min_size=1, max_size=4))
def test_gate_accepted_units_read_back_identical_and_refused_ones_change_nothing(memory, batch):
    n = next(_serial)
    batch = [Unit(f"e{n}-{u.id}", u.time, u.actor, u.text) for u in batch]  # ids no earlier example archived
    ws = memory.workspace
    before = tree_state(ws.root)
    try:
        expected = accept(batch).units  # the record contract: the gate, plus no line break and a named actor
    except UnitError:
        with pytest.raises(UnitError):
            memory.record(batch, slug="prop")
        assert tree_state(ws.root) == before
        return
    res = memory.record(batch, slug="prop")
    # a batch of one session name and time goes on in the segment an earlier example wrote: read back its units
    read_back = [r.unit for r in ws.iter_raw() if r.path == res.segment and r.unit.id in res.archived_ids]
    assert read_back == expected
    assert check_units(read_back) == read_back  # the stored form is a fixed point of the gate


@pytest.fixture
def memory(tmp_path):
    with horma.Memory(tmp_path / "mem", sandbox="local") as mem:
        yield mem


# -- the classes of the issue, one by one ------------------------------------------------------
def test_a_newline_in_time_cannot_forge_an_archive_line(memory):
    before = tree_state(memory.workspace.root)
    forged = Unit("real", "2024-01-01 10:00\nghost | 2024-01-01 10:00 | mallory: I was never recorded", "a", "hi")
    with pytest.raises(UnitError, match="field 'time'"):
        memory.record([forged])
    assert tree_state(memory.workspace.root) == before


@pytest.mark.parametrize("breaker", ["\n", "\u2028", "\u2029", "\x85", "\x1c", "\r\n", "\x0b"])
def test_a_line_break_in_a_text_is_refused_not_folded(memory, breaker):
    before = tree_state(memory.workspace.root)
    message = f"unit 'u1': text holds a line break \\(U\\+{ord(breaker[0]):04X} after 'one'\\)"
    with pytest.raises(UnitError, match=message):
        memory.record([Unit("u1", "2024-01-01", "Ann", f"one{breaker}two")])
    assert tree_state(memory.workspace.root) == before


def test_line_breaks_fold_when_asked_and_cannot_split_a_line(memory):
    text = "one\ntwo\u2028three\u2029four\x85five\x1csix\r\nseven"
    res = memory.record([Unit("u1", "2024-01-01", "Ann Bee", text)], newlines="fold")
    lines = memory.workspace.resolve(res.segment).read_text(encoding="utf-8").split("\n")
    assert lines == ["u1 | 2024-01-01 | Ann Bee: one two three four five six seven", ""]
    assert [r.unit.text for r in memory.workspace.iter_raw()] == ["one two three four five six seven"]


@pytest.mark.parametrize("unit, message", [
    (Unit("a", "2024-01-01", "Ann: Bee", "t"), "contains ': '"),
    (Unit("a", "2024-01-01", "Ann", "red \x1b[31m alert"), "control character (U+001B)"),
    (Unit("a", "2024-01-01", "Ann", "nul \x00"), "control character (U+0000)"),
    (Unit("a", "2024-01-01", "Ann", "half \ud800"), "lone surrogate (U+D800)"),
    (Unit("a", "2024-01-01", "A\x9bnn", "t"), "actor holds a control character"),
    (Unit("a\x1b", "2024-01-01", "Ann", "t"), "control character"),
    (Unit("x" * 201, "2024-01-01", "Ann", "t"), "longer than 200"),
    (Unit("a", "2024-01-01", "Ann | Bee", "t"), "contains '|'"),
    (Unit("a", "2024-01-01", "Ann\nBee", "t"), "actor holds a line break"),
    (Unit("a", "2024-01-01", " ", "t"), "empty actor"),
    (Unit("a", "2024-01-01T10:00+2", "Ann", "t"), "not an ISO date or RFC 3339 date-time"),
    (Unit("a", "20230508T13569", "Ann", "t"), "not an ISO date"),
    (Unit("a", 20240101, "Ann", "t"), "field 'time' must be a string, got int"),
    (Unit("a", "2024-01-01", None, "t"), "field 'actor' must be a string, got NoneType"),
])
def test_gate_refuses_what_would_not_round_trip(memory, unit, message):
    before = tree_state(memory.workspace.root)
    with pytest.raises(UnitError, match=re.escape(message)):
        memory.record([unit])
    assert tree_state(memory.workspace.root) == before


@pytest.mark.parametrize("given_, stored", [
    ("20230508T1356", "2023-05-08 13:56"),
    ("2023-05-08T13:56:00", "2023-05-08 13:56"),
    ("2023-05-08 13:56:07", "2023-05-08 13:56:07"),
    ("2023-05-08T13:56:07.250", "2023-05-08 13:56:07.250000"),
    ("20230508", "2023-05-08"),
    (" 2023-05-08 ", "2023-05-08"),
    ("2023-05-08T13:56:00Z", "2023-05-08 13:56"),
    ("2023-05-08t13:56:07z", "2023-05-08 13:56:07"),
    ("2023-05-08T13:56:00+02:00", "2023-05-08 11:56"),
    ("2023-05-08T23:30:00.5-01:00", "2023-05-09 00:30:00.500000"),  # RFC 3339 offsets are converted to UTC
])
def test_times_normalise_to_one_iso_form(given_, stored):
    assert normalize_time(given_) == stored


def test_compact_iso_times_sort_and_name_folders_like_the_rest(memory):
    memory.record([Unit("late", "2023-05-09 08:00", "a", "later")], slug="b")
    res = memory.record([Unit("early", "20230508T1356", "a", "earlier")], slug="a")
    assert res.segment == "raw/2023-05-08T13-56__a/units.log"
    assert [r.unit.id for r in memory.workspace.iter_raw()] == ["early", "late"]  # archive order = time order
    assert next(r.unit.time for r in memory.workspace.iter_raw()) == "2023-05-08 13:56"


def test_duplicate_id_with_other_text_in_one_batch_is_refused_and_repeats_are_kept_once(memory):
    before = tree_state(memory.workspace.root)
    with pytest.raises(UnitError, match="appears twice in one batch with different content"):
        memory.record([Unit("d", "2024-01-01", "a", "first"), Unit("d", "2024-01-01", "a", "second")])
    assert tree_state(memory.workspace.root) == before
    same = Unit("d", "2024-01-01", "a", "first")
    res = memory.record([same, same])
    assert res.archived == 1 and [r.unit for r in memory.workspace.iter_raw()] == [same]


@pytest.mark.parametrize("bad", [None, 5, "abc", {"id": "x"}, [5], [{"id": "x", "time": "2024-01-01"}],
                                 [{"id": "x", "time": "2024-01-01", "actor": "a", "text": "t", "mood": 1}]])
def test_wrong_types_through_the_api_are_one_unit_error(memory, bad):
    before = tree_state(memory.workspace.root)
    with pytest.raises(UnitError):
        memory.record(bad)
    assert tree_state(memory.workspace.root) == before


@pytest.mark.parametrize("kwargs, error", [
    ({"sandbox": "nope"}, SandboxError), ({"sandbox": 3}, SandboxError), ({"manager": "nope"}, WorkspaceError),
    ({"retriever": 7}, ConfigError), ({"manager": "llm"}, LLMError),  # no llm=, and no key for models.manager
])
def test_invalid_settings_are_refused_before_the_workspace_exists(tmp_path, monkeypatch, kwargs, error):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(error):
        horma.Memory(tmp_path / "never", **kwargs)
    assert not (tmp_path / "never").exists()


def test_api_wrong_workspace_and_query_types(tmp_path, memory):
    with pytest.raises(WorkspaceError, match="workspace must be a path"):
        horma.Memory(42)
    with pytest.raises(WorkspaceError, match="query must be a string"):
        memory.recall(42)
    (tmp_path / "afile").write_text("x")
    with pytest.raises(WorkspaceError, match="cannot create the workspace"):
        horma.Memory(tmp_path / "afile" / "ws")


def test_segment_time_and_slug_are_checked(memory):
    before = tree_state(memory.workspace.root)
    with pytest.raises(UnitError, match="segment time"):
        memory.record([Unit("a", "2024-01-01", "a", "t")], time="2024-01-01\nx")
    with pytest.raises(WorkspaceError, match="slug must be a string"):
        memory.record([Unit("a", "2024-01-01", "a", "t")], slug=["../x"])
    assert tree_state(memory.workspace.root) == before
    res = memory.record([Unit("a", "2024-01-01", "a", "t")], slug="../../etc/x")
    assert res.segment == "raw/2024-01-01__etc-x/units.log"  # a slug is slugified inside raw/


# -- loaders share the gate ----------------------------------------------------------------------
def write_jsonl(path: Path, *records: dict) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def test_jsonl_keeps_json_strings_with_line_separators(tmp_path):
    f = write_jsonl(tmp_path / "u.jsonl",
                    {"id": "a", "time": "20230508T1356", "actor": "x", "text": "one\u2028two\u2029"})
    assert "\u2028" in f.read_text(encoding="utf-8")  # written raw: str.splitlines() would split here
    [seg] = load_jsonl(f)
    assert seg.units == (Unit("a", "2023-05-08 13:56", "x", "one two"),)


def test_jsonl_lone_surrogate_is_one_error_line_and_no_raw_folder(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_text('{"id": "a", "time": "2024-01-01", "actor": "x", "text": "half \\ud800 of it"}\n')
    ws = Workspace.init(tmp_path / "ws")
    before = tree_state(ws.root)
    r = cli("ingest", "jsonl", f, "--workspace", ws.root, "--backend", "local")
    assert_one_error_line(r, "line 1", "lone surrogate")
    assert tree_state(ws.root) == before and list((ws.root / "raw").iterdir()) == []


def locomo_sample(sample_id: str, text: str = "hello") -> dict:
    return {"sample_id": sample_id, "qa": [],
            "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "1:56 pm on 8 May, 2023",
                             "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": text}]}}


@pytest.mark.parametrize("sample_id", ["../x", "/tmp/abs", "a/b", "..", ".hidden", "", "x\ny"])
def test_locomo_sample_ids_that_are_not_folder_names_are_refused(tmp_path, sample_id):
    with pytest.raises(DatasetError, match="cannot name a folder"):
        parse_samples([locomo_sample(sample_id)])
    f = tmp_path / "l.json"
    f.write_text(json.dumps([locomo_sample(sample_id)]))
    out = tmp_path / "out"
    r = cli("ingest", "locomo", f, "--workspace", out, "--backend", "local")
    assert_one_error_line(r, "cannot name a folder")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["l.json"]  # nothing created, in or out of --workspace


def test_locomo_and_longmemeval_turns_go_through_the_gate():
    with pytest.raises(DatasetError, match=r"session_1\[0\]: unit D1:1: text holds a control character"):
        parse_samples([locomo_sample("conv-1", "\x1b]0;owned\x07")])
    [conv] = parse_samples([locomo_sample("conv-1", "two\nlines")])
    assert conv.sessions[0].units[0].text == "two lines"
    item = {"question_id": "q1", "question_type": "single-session-user", "question": "?", "answer": "a",
            "question_date": "2023/05/20 (Sat) 02:21", "haystack_session_ids": ["s 1"],
            "haystack_dates": ["2023/05/20 (Sat) 02:21"],
            "haystack_sessions": [[{"role": "user", "content": "nul \x00 here"}]], "answer_session_ids": []}
    with pytest.raises(LongMemEvalError, match=r"haystack_sessions\[0\]\[0\]: unit s_1:0: text holds"):
        parse_item(item, 0)


def test_check_name_and_check_unit_contracts():
    assert check_name("conv-26", "sample_id") == "conv-26"
    with pytest.raises(UnitError):
        check_name(26, "sample_id")
    u = Unit("a", "2024-01-01 10:00", "Ann", "plain")
    assert check_unit(u) is u  # an already stored form is returned as is
    assert check_unit({"id": "a", "time": "2024-01-01T10:00", "actor": "", "text": " t "}) == \
        Unit("a", "2024-01-01 10:00", "-", "t")


@pytest.mark.parametrize("batch, kwargs, message", [
    ([{"id": ["x"], "actor": "a", "text": "t"}], {}, "field 'id' must be a string, got list"),
    ([{"id": "a", "time": "2024-01-01", "text": "t"}], {}, "missing field 'actor'"),
    ([{"id": "a", "actor": "a", "text": "t", "mood": "ok"}], {}, "unknown field 'mood'"),
    ([{"id": "a", "actor": "a", "text": "t"}], {"newlines": "keep"}, "newlines must be one of refuse, fold"),
])
def test_the_record_contract_refuses_malformed_batches_in_one_error(memory, batch, kwargs, message):
    before = tree_state(memory.workspace.root)
    with pytest.raises(UnitError, match=re.escape(message)):
        memory.record(batch, **kwargs)
    assert tree_state(memory.workspace.root) == before
