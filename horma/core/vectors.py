"""Sentence vectors in the index: what is embedded, and the encoder contract the index writes through.

The index stores one int8 vector per unit (with its scale) beside the FTS5
rows, in the same transaction; the model runs on the host (``horma.embed``),
never in a sandbox, so this module only names the contract and the text.
"""

from __future__ import annotations

from collections.abc import Sequence

EMBED_BATCH = 256  # units per encoder call: large enough to batch well, small enough to show progress


class Encoder:
    """Turns texts into quantized unit vectors; ``model_id`` names the model (a change re-embeds all).

    A base class rather than a ``typing.Protocol``: ``hsearch`` imports this module on every query and
    ``typing`` would cost it milliseconds of start-up.
    """

    model_id = ""

    def quantize(self, texts: Sequence[str]) -> list[tuple[bytes, float]]:
        """One (int8 vector bytes, scale) per text; vector * scale is the unit-length float vector."""
        raise NotImplementedError


def embed_text(actor: str, body: str) -> str:
    """What a unit's vector embeds: who said it and what, as the raw line reads."""
    return f"{actor}: {body}" if actor else body
