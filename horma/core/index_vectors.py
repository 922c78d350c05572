"""The index's sentence vectors and the links between them, written through the host's encoder.

A part of :class:`horma.core.index.SearchIndex` (its base class), kept apart
because it is the one part that only the host runs: an encoder is the host's,
and so is numpy, imported where it is used (``horma.vector_codec``,
``horma.update_links``). A sandbox's ``hindex`` has no encoder and never gets
here; the host's next sync embeds and links what it indexed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from horma.core import text as ht
from horma.core.layout import MANAGER_KINDS, RawLines
from horma.core.notes import search_text
from horma.core.own_notes import has_meaning
from horma.core.vectors import CODEC, CODEC_KEY, EMBED_BATCH, INT8, LINKS_KEY, Encoder, embed_text


class VectorWriter:
    """Vectors in the caller's transaction (``SearchIndex`` runs every write in one), then their ``updates`` links."""

    conn: sqlite3.Connection
    encoder: Encoder | None
    embedded: int
    _compact: bool

    def _vectors_current(self) -> bool:
        """Whether the stored vectors are the encoder's: another model's are never mixed in (sync redoes them).

        Its vectors in the int8 code of an index before version 8 are re-coded first (:meth:`_recode`,
        no unit embedded again); a codec this horma does not know counts as another model's."""
        if self.encoder is None:
            return False
        row = self.conn.execute("SELECT value FROM meta WHERE key='embed_model'").fetchone()
        if row is None:
            self.conn.execute("INSERT INTO meta VALUES('embed_model', ?)", (self.encoder.model_id,))
        elif row[0] != self.encoder.model_id:
            return False
        codec = self.conn.execute("SELECT value FROM meta WHERE key=?", (CODEC_KEY,)).fetchone()
        if codec is None or codec[0] == INT8:
            self._recode(INT8)
        elif codec[0] != CODEC:
            return False
        return True

    def link_updates(self) -> int:
        """Link the units embedded since the last link (:mod:`horma.update_links`), in a transaction of its own
        after the one that stored their vectors; how many were linked. Outside a transaction only."""
        if self.encoder is None:
            return 0
        from horma.update_links import link_pending  # here: numpy is the host's, which alone has an encoder

        return link_pending(self.conn)

    def _unlink_all(self) -> None:
        """No link and no unit linked: the vectors are being replaced, and their links are made anew."""
        self.conn.execute("DELETE FROM updates")
        self.conn.execute("DELETE FROM meta WHERE key=?", (LINKS_KEY,))

    def _recode(self, codec: str) -> None:
        """Every stored vector from ``codec`` to :data:`CODEC`, named so in meta, in the caller's transaction."""
        from horma.vector_codec import recode  # here: numpy is the host's; hsearch and hindex never get here

        if recode(self.conn, codec):  # rows half their size leave their pages half empty: freed once, after
            self._compact = True
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (CODEC_KEY, CODEC))

    def _put_vectors(self, rowids: list[int], texts: list[str]) -> None:
        assert self.encoder is not None
        if rowids:  # units a sandbox's hindex indexed, embedded after later ones were linked: link from them
            self.conn.execute("UPDATE meta SET value=? WHERE key=? AND CAST(value AS INTEGER) >= ?",
                              (str(min(rowids) - 1), LINKS_KEY, min(rowids)))
        for start in range(0, len(texts), EMBED_BATCH):
            coded = self.encoder.quantize(texts[start:start + EMBED_BATCH])
            self.conn.executemany("INSERT OR REPLACE INTO vectors(unit, q, scale) VALUES(?, ?, 0)",
                                  list(zip(rowids[start:start + EMBED_BATCH], coded, strict=True)))
            self.embedded += len(coded)

    def _put_line_vectors(self, lines: list[tuple[int, str]]) -> None:
        """Vectors for lines (row id, text) of notes someone wrote: such a line is found by meaning as well as
        by its words ("What should you leave out of a stir-fry for me?" finds "- Allergic to peanuts").
        The manager's regenerated pages get none: their lines point back at raw units, which have theirs."""
        assert self.encoder is not None
        for start in range(0, len(lines), EMBED_BATCH):
            batch = lines[start:start + EMBED_BATCH]
            coded = self.encoder.quantize([search_text(t) for _, t in batch])
            self.conn.executemany("UPDATE note_lines SET q=? WHERE id=?",
                                  [(q, lid) for (lid, _), q in zip(batch, coded, strict=True)])

    def embed_missing(self, root: str, progress: Callable[[int, int], None] | None = None) -> int:
        """Embed every indexed unit that has no vector of the encoder's model (after a model change, a
        sandbox's ``hindex`` or an index from before vectors), and every line of a note someone wrote that
        has none; returns how many units were embedded."""
        if self.encoder is None:
            return 0
        if not self._vectors_current():
            self.conn.execute("DELETE FROM vectors")
            self.conn.execute("UPDATE note_lines SET q=NULL WHERE q IS NOT NULL")
            self._unlink_all()  # another model's likeness: linked again after the commit
            self.conn.execute("UPDATE meta SET value=? WHERE key='embed_model'", (self.encoder.model_id,))
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES(?, ?)", (CODEC_KEY, CODEC))
        missing = self.conn.execute(
            "SELECT u.id, s.path, u.offset FROM units u JOIN segments s ON s.id = u.seg "
            "LEFT JOIN vectors v ON v.unit = u.id WHERE v.unit IS NULL ORDER BY u.id").fetchall()
        with RawLines(root) as lines:
            for start in range(0, len(missing), EMBED_BATCH):
                batch = missing[start:start + EMBED_BATCH]
                texts = []
                for _, path, offset in batch:
                    unit = ht.parse_unit(lines.read(path, offset))
                    texts.append(embed_text(unit[2], unit[3]) if unit else "")
                self._put_vectors([b[0] for b in batch], texts)
                if progress is not None:
                    progress(min(start + EMBED_BATCH, len(missing)), len(missing))
        kinds = ",".join("?" * len(MANAGER_KINDS))
        self._put_line_vectors([(lid, t) for lid, t in self.conn.execute(
            "SELECT l.id, l.text FROM note_lines l JOIN notes n ON n.id = l.note "
            f"WHERE l.q IS NULL AND n.kind NOT IN ({kinds}) ORDER BY l.id", sorted(MANAGER_KINDS)) if has_meaning(t)])
        return len(missing)
