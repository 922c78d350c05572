"""How the notes history's object store stays small, fast and writable: packs, locks, leftovers.

A commit writes its new objects as one pack (a loose file per object costs far
more). Packs then pile up, so:

- at commit time, past ``MAX_PACKS``, the smaller half of the packs is rolled
  into one: no record pays for the whole history;
- :func:`compact` rewrites every pack into one delta-compressed pack (a regenerated
  note differs from its previous version by a few lines): the slow part, the
  deltas, is computed without the writer lock; only the swap holds it. A
  server runs it in the background, never inside a request.

A writer killed mid-commit leaves dulwich's ``*.lock`` files behind, and every
later ref update would fail with ``FileLocked``. Horma writers hold the
workspace's writer lock (an flock, released by the kernel when its holder
dies), so a ref lock found while holding it is a dead writer's:
:func:`clear_stale_locks` removes it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

from dulwich.objects import Tree
from dulwich.pack import pack_objects_to_data
from dulwich.repo import Repo

MAX_PACKS = 32
HISTORY_DIR = "history"  # under .horma/


def clear_stale_locks(history: Path) -> list[str]:
    """Remove ref lock files of a dead writer; the caller holds the workspace's writer lock."""
    removed = []
    candidates = [history / "HEAD.lock", history / "packed-refs.lock"]
    refs = history / "refs"
    if refs.is_dir():
        candidates.extend(refs.rglob("*.lock"))
    for lock in candidates:
        if lock.is_file() and not lock.is_symlink():
            lock.unlink()
            removed.append(lock.relative_to(history).as_posix())
    return removed


def store_objects(store, objects: dict[bytes, object], known: set[bytes]) -> None:
    """Write the objects the store lacks as one pack, then roll up small packs if there are too many.

    ``known`` holds ids already stored (it grows with ``objects``).
    """
    missing = [(o, None) for oid, o in objects.items() if oid not in known]  # a duplicate costs bytes only
    if missing:
        store.add_objects(missing)
    known.update(objects)
    if len(store.packs) > MAX_PACKS:
        roll_up(store)


def roll_up(store) -> int:
    """Merge the smaller half of the packs into one; how many were merged. No deltas: this runs inside a record.

    The biggest packs are never touched, so a roll-up costs the recent commits'
    size, not the history's: an object is copied about log(n)/log(MAX_PACKS/2)
    times over the history's life.
    """
    chosen = sorted(store.packs, key=len)[: len(store.packs) // 2]
    if len(chosen) < 2:
        return 0
    objects = {obj.id: obj for pack in chosen for obj in pack.iterobjects()}
    _swap(store, chosen, store.add_objects([(o, None) for o in objects.values()]))
    return len(chosen)


def compact(history: Path, writer: Callable[[], AbstractContextManager[object]]) -> int:
    """Rewrite every pack of the history into one delta-compressed pack; how many packs it replaced.

    Deltas are computed from the packs as they were when it started, without
    the writer lock; ``writer()`` is held only to write the result and delete
    the packs it replaces (a commit in between adds a pack, which stays).
    """
    if not (history / "HEAD").is_file():
        return 0
    repo = Repo(str(history), bare=True)
    try:
        store = repo.object_store
        packs = list(store.packs)
        if len(packs) < 2:
            return 0
        objects = {obj.id: obj for pack in packs for obj in pack.iterobjects()}
        names = _names(objects.values())
        count, records = pack_objects_to_data([(o, (o.type_num, names.get(oid, b""))) for oid, o in objects.items()],
                                              deltify=True)
        records = list(records)  # the slow part, done here, outside the lock
        with writer():
            new = store.add_pack_data(count, iter(records))
            _swap(store, packs, new)
        return len(packs)
    finally:
        repo.close()


def _names(objects) -> dict[bytes, bytes]:
    """A file name for every blob a tree in ``objects`` names: versions of one note sort together for deltas."""
    out: dict[bytes, bytes] = {}
    for obj in objects:
        if isinstance(obj, Tree):
            for entry in obj.iteritems():
                out.setdefault(entry.sha, entry.path)
    return out


def _swap(store, old: list, new) -> None:
    """Drop the packs ``new`` replaces (never ``new`` itself, which may share a name with one of them)."""
    keep = new.name() if new is not None else None
    for pack in old:
        if pack.name() != keep:
            store._remove_pack(pack)  # dulwich's own repack uses it: closes the pack, deletes .pack and .idx
    store._update_pack_cache()


def drop_leftovers(meta: Path) -> None:
    """Half-swapped repositories a killed history rewrite left (they may hold forgotten text)."""
    for p in meta.glob(f"{HISTORY_DIR}.*-*"):
        shutil.rmtree(p, ignore_errors=True)


def pack_objects(history: Path) -> list[int]:
    """How many objects each pack of the history holds, read from the .idx headers (v2: the last fanout entry)."""
    out = []
    for idx in (history / "objects" / "pack").glob("*.idx"):
        try:
            with open(idx, "rb") as fh:
                head = fh.read(8 + 256 * 4)
        except OSError:
            continue
        if len(head) == 8 + 256 * 4 and head[:4] == b"\377tOc":
            out.append(int.from_bytes(head[-4:], "big"))
    return out


def needs_compaction(history: Path, min_packs: int) -> bool:
    """Whether a full compaction is due: ``min_packs`` packs or more, and the packs written since the biggest
    hold as many objects as it does. The history doubles between compactions, so their total cost stays
    linear in its size (compacting at every few packs made it quadratic and starved the server)."""
    counts = sorted(pack_objects(history))
    return len(counts) >= min_packs and sum(counts[:-1]) >= counts[-1]


def open_fds(pid: int | None = None) -> int:
    """How many file descriptors a process holds (Linux); for tests and the load benchmark."""
    return len(os.listdir(f"/proc/{pid or os.getpid()}/fd"))


def main(argv: list[str]) -> None:
    """``python -m horma.history_packs WORKSPACE``: compact its history in a process of its own (a server's
    upkeep runs it so: the deltas are pure-Python work that would hold the server's GIL for seconds)."""
    from horma.workspace import Workspace

    ws = Workspace.open(argv[0])
    compact(ws.meta / HISTORY_DIR, ws.writer)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
