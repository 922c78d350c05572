"""Sentence vectors in the index: what is embedded, and the encoder contract the index writes through.

The index stores one vector per unit at 4 bits a dimension (with its step)
beside the FTS5 rows, in the same transaction; the model runs on the host
(``horma.embed``) and the code is numpy's (``horma.vector_codec``), never in a
sandbox, so this module only names the contract, the codec and the text.
"""

from __future__ import annotations

from collections.abc import Sequence

EMBED_BATCH = 256  # units per encoder call: large enough to batch well, small enough to show progress
# The code of the stored vectors, named in meta under CODEC_KEY (horma.vector_codec reads and writes both):
# CODEC, two 4-bit codes a byte, since index version 8; INT8, a byte a dimension, every index before it
# (no key), which the host's next write re-codes (horma.core.index.SearchIndex._vectors_current).
CODEC_KEY = "vector_codec"
CODEC = "q4"
INT8 = "int8"
# In meta once every stored vector has its ``updates`` links (horma.update_links): an index from before
# version 10 has vectors and no links, and the host's next write links them all.
LINKS_KEY = "update_links"
# The rule the stored links were made by (2: another talk, horma.core.talks; 3: a later unit that says a
# change links at a lower likeness, horma.update_links.CHANGE_SIM); links of another are made anew.
RULE_KEY = "update_rule"
RULE = "3"


class Encoder:
    """Turns texts into quantized unit vectors; ``model_id`` names the model (a change re-embeds all).

    A base class rather than a ``typing.Protocol``: ``hsearch`` imports this module on every query and
    ``typing`` would cost it milliseconds of start-up.
    """

    model_id = ""

    def quantize(self, texts: Sequence[str]) -> list[bytes]:
        """One code per text in the index's :data:`CODEC`, as ``horma.vector_codec.encode`` makes it from
        the unit-length float vectors."""
        raise NotImplementedError


def embed_text(actor: str, body: str) -> str:
    """What a unit's vector embeds: who said it and what, as the raw line reads."""
    return f"{actor}: {body}" if actor else body
