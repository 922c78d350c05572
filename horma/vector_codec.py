"""How the index stores a unit's sentence vector: 4 bits a dimension, two codes a byte, a step per row.

Why 4 bits: the vectors were the largest part of the index (int8, 2.0-2.4x the
raw text's bytes), and the index is meant to stay within 3x the raw text. A
4-bit code halves them (192 bytes for MiniLM's 384 dimensions) and, measured on
LoCoMo, the assistant chats, the user chats and LongMemEval, keeps recall within
noise: the cosine to a query moves by about 0.0044 on average and 95.6% of the
top-64 neighbours stay the same. The step is a fixed fraction of the row's
standard deviation, not of its largest component: a sentence vector's few
large components then clip at +-8 steps, and the many small ones, which carry
most of the cosine, keep a fine step. A random rotation before quantizing was
measured too and gained nothing. The step itself is not stored (index version
12): the reader renormalizes every row, and a row's one step cancels there.

The index names its codec in ``meta`` (``vector_codec``); an index without the
key holds the int8 code every index before it held (read here, re-coded by the
host's next write: ``horma.core.index.SearchIndex``). numpy lives here, outside
``horma.core``, which ``hsearch`` imports on every query.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np

from horma.core.vectors import CODEC, INT8

# step = STEP * the row's standard deviation: the width that kept the cosine closest on the dev sets
STEP = 0.335
LOW, HIGH = -8, 7  # a nibble's codes, stored as code + 8
CODECS = (CODEC, INT8)
RECODE_ROWS = 10_000  # rows re-coded at a time: a few MB of numpy however large the index


def encode(v: np.ndarray) -> list[bytes]:
    """One code per row of ``v`` (unit-length rows of an even width), as the index stores it.

    The row's step is not stored (since index version 12; 8 bytes a unit before): the reader renormalizes
    every row, so a row's step cancels out of every cosine.
    """
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 2 or v.shape[1] % 2:
        raise ValueError(f"vectors of an even width expected, got shape {v.shape}")
    # a row of zeros has no spread: any positive step codes it as zeros
    step = np.maximum(v.std(axis=1), 1e-12) * STEP
    codes = np.clip(np.rint(v / step[:, None]), LOW, HIGH).astype(np.int16) - LOW
    packed = (codes[:, 0::2] | (codes[:, 1::2] << 4)).astype(np.uint8)
    return [packed[i].tobytes() for i in range(len(v))]


def decode(blobs: Sequence[bytes], codec: str) -> np.ndarray:
    """Unit-length float32 rows from the stored codes of either codec (``CODEC``, or ``INT8`` of older indexes)."""
    return normalized(unpack(blobs, codec))


def unpack(blobs: Sequence[bytes], codec: str) -> np.ndarray:
    """The stored codes as one int8 row each (a 4-bit code's nibbles as -8..7): what the host keeps in memory
    and multiplies exactly (``horma.vectors``)."""
    n = len(blobs)
    if codec not in CODECS:
        raise ValueError(f"unknown vector codec {codec!r}")
    if not n:
        return np.zeros((0, 0), dtype=np.int8)
    if codec == CODEC:
        packed = np.frombuffer(b"".join(blobs), dtype=np.uint8).reshape(n, -1)
        codes = np.empty((n, 2 * packed.shape[1]), dtype=np.int8)
        codes[:, 0::2] = (packed & 15).astype(np.int8) + LOW
        codes[:, 1::2] = (packed >> 4).astype(np.int8) + LOW
        return codes
    return np.frombuffer(b"".join(blobs), dtype=np.int8).reshape(n, -1)


def normalized(codes: np.ndarray) -> np.ndarray:
    """Rows of codes as unit-length float32 rows.

    Rows are renormalized: clipping and rounding move a row's length, and the reader takes a dot product
    with the query as its cosine. A row's step (its ``scale`` column, 0 since version 12) scales all of
    its codes alike, so the codes alone give the same row.
    """
    if not len(codes):
        return np.zeros((0, 0), dtype=np.float32)
    m = codes.astype(np.float32)
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def recode(conn: sqlite3.Connection, codec: str) -> int:
    """Rewrite every row of the index's ``vectors`` from ``codec`` to :data:`CODEC` in place; returns how many.

    How an index of an older version gets the smaller code without embedding a unit again: the writer
    (``horma.core.index.SearchIndex``) calls it in its transaction, and names the codec in meta with it.
    """
    last = count = 0
    while rows := conn.execute("SELECT unit, q FROM vectors WHERE unit > ? ORDER BY unit LIMIT ?",
                               (last, RECODE_ROWS)).fetchall():
        coded = encode(decode([r[1] for r in rows], codec))
        conn.executemany("UPDATE vectors SET q=?, scale=0 WHERE unit=?",
                         [(q, r[0]) for r, q in zip(rows, coded, strict=True)])
        last, count = rows[-1][0], count + len(rows)
    return count
