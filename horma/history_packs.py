"""How the notes history's object store stays small, fast and writable: packs, locks, leftovers.

A commit writes its new objects as one pack (a loose file per object costs far
more), straight into the pack folder: dulwich's ``add_objects`` reads the index
of every pack already there to name the new one, a cost that grew with the
history on every record. Packs then pile up, so :func:`compact` merges them,
geometrically: the small packs written since the last merge, or all of them
once those hold as many objects as the rest, so an object is rewritten about
log(n) times over the history's life, not once per merge.

A merged pack stores each note as deltas between its own versions: every path
is followed through the commits, the newest version stays whole and each older
one is a delta from the next (git's shape: the version read most is read
fastest), at most ``MAX_DEPTH`` deltas deep. One delta per object against the
right base is cheap; dulwich's own window search (ten candidates, grouped by
file name only, so the month pages of every person were compared with each
other) took over a minute for a 400-record history and held a server core.

A server runs :func:`compact` in a child process, outside the request path;
a writer with no server rolls the packs up itself past ``MAX_PACKS``.

A writer killed mid-commit leaves dulwich's ``*.lock`` files behind, and every
later ref update would fail with ``FileLocked``. Horma writers hold the
workspace's writer lock (an flock, released by the kernel when its holder
dies), so a ref lock found while holding it is a dead writer's:
:func:`clear_stale_locks` removes it, with the temp files of a pack it was writing.
"""

from __future__ import annotations

import os
import shutil
import stat
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dulwich.objects import Commit, ObjectID, ShaFile, Tree
from dulwich.pack import (
    UnpackedObject,
    create_delta,
    full_unpacked_object,
    write_pack_data,
    write_pack_index,
    write_pack_objects,
)
from dulwich.repo import Repo

try:  # dulwich 1.x names the hash function of every pack it writes; 0.2x knows only SHA-1
    from dulwich.object_format import DEFAULT_OBJECT_FORMAT

    _FORMAT: dict[str, Any] = {"object_format": DEFAULT_OBJECT_FORMAT}
except ImportError:  # pragma: no cover - depends on the installed dulwich
    _FORMAT = {}

MAX_PACKS = 32
MAX_DEPTH = 50  # deltas in a chain, as git's default: reading an old version applies at most this many
HISTORY_DIR = "history"  # under .horma/
_TMP = "tmp-horma-"  # a pack being written, in objects/pack/


def clear_stale_locks(history: Path) -> list[str]:
    """Remove ref lock files and half-written packs of a dead writer; the caller holds the workspace's writer lock."""
    removed = []
    candidates = [history / "HEAD.lock", history / "packed-refs.lock"]
    refs = history / "refs"
    if refs.is_dir():
        candidates.extend(refs.rglob("*.lock"))
    packs = history / "objects" / "pack"
    candidates.extend(packs.glob(f"{_TMP}*"))
    # a .pack with no .idx: its writer died between the two renames (no reader lists it; it may hold note text)
    candidates.extend(p for p in packs.glob("*.pack") if not p.with_suffix(".idx").exists())
    for lock in candidates:
        if lock.is_file() and not lock.is_symlink():
            lock.unlink()
            removed.append(lock.relative_to(history).as_posix())
    return removed


def store_objects(history: Path, objects: dict[bytes, ShaFile], known: set[bytes]) -> None:
    """Write the objects not in ``known`` (ids already stored; it grows with ``objects``) as one pack, then merge
    packs if there are more than ``MAX_PACKS``. Costs what is written, not what the history holds."""
    missing = [o for oid, o in objects.items() if oid not in known]  # a duplicate costs bytes only
    if missing:
        write_pack(history, missing)
    known.update(objects)
    if len(pack_objects(history)) > MAX_PACKS:
        compact(history, nullcontext)  # the caller holds the writer lock already


def write_pack(history: Path, objects: list[ShaFile]) -> None:
    """``objects`` as one pack, whole: the .pack, then its .idx (dulwich and git read a pack only with its index),
    each written under a temp name and renamed into place."""
    folder = history / "objects" / "pack"
    tmp = folder / f"{_TMP}{uuid.uuid4().hex}"
    with open(f"{tmp}.pack", "wb") as fh:
        entries, checksum = write_pack_objects(fh, [(o, None) for o in objects], **_FORMAT)
    with open(f"{tmp}.idx", "wb") as fh:
        write_pack_index(fh, sorted((sha, off, crc) for sha, (off, crc) in entries.items()), checksum)
    name = folder / f"pack-{checksum.hex()}"
    for ext in (".pack", ".idx"):
        os.chmod(f"{tmp}{ext}", 0o444)
        os.replace(f"{tmp}{ext}", f"{name}{ext}")


def compact(history: Path, writer: Callable[[], AbstractContextManager[object]], everything: bool = False) -> int:
    """Merge packs into one delta-compressed pack; how many it replaced (0 when there was nothing to merge).

    Which packs: see :func:`merge_count` (``everything``: all of them). The
    merged pack is written from the packs as they were when it started,
    without the writer lock, one object at a time (:class:`Merge`);
    ``writer()`` is held only to move it into place and delete the packs it
    replaces (a commit in between adds a pack, which stays).
    """
    if not (history / "HEAD").is_file():
        return 0
    repo = Repo(str(history), bare=True)
    try:
        store = repo.object_store
        packs = sorted(store.packs, key=len)
        chosen = packs if everything else packs[:merge_count([len(p) for p in packs])]
        if len(chosen) < 2:
            return 0
        merge = Merge.of_packs(chosen)
        folder = history / "objects" / "pack"
        tmp = folder / f"{_TMP}{uuid.uuid4().hex}"
        try:
            with open(f"{tmp}.pack", "wb") as fh:  # the slow part, done here, outside the lock
                entries, checksum = write_pack_data(fh, delta_records(merge), num_records=len(merge.ids), **_FORMAT)
            with open(f"{tmp}.idx", "wb") as fh:
                write_pack_index(fh, sorted((sha, off, crc) for sha, (off, crc) in entries.items()), checksum)
            name = f"pack-{checksum.hex()}"
            with writer():
                for ext in (".pack", ".idx"):
                    os.chmod(f"{tmp}{ext}", 0o444)
                    os.replace(f"{tmp}{ext}", folder / f"{name}{ext}")
                _swap(store, chosen, name)
        finally:
            for ext in (".pack", ".idx"):
                Path(f"{tmp}{ext}").unlink(missing_ok=True)
        return len(chosen)
    finally:
        repo.close()


@dataclass
class Merge:
    """The objects a merge takes, read when they are written: their ids, their commits (small: kept), and each
    object's type and bytes on demand. Not every object whole at once: ``notes/sessions/`` holds a note per
    segment, so each of its versions lists every session note before it, and at 10^5 turns the versions of
    that one folder, whole, were gigabytes (a merge peaked at 5.8 GB; docs/benchmarks.md, session 15)."""

    ids: set[bytes]
    commits: dict[bytes, Commit]
    raw: Callable[[bytes], tuple[int, bytes]]

    @classmethod
    def of_packs(cls, packs: list) -> Merge:
        ids: set[bytes] = set()
        commits: dict[bytes, Commit] = {}
        for pack in packs:
            for obj in pack.iterobjects():  # one pass, each object dropped after it: ids and commits only
                ids.add(obj.id)
                if isinstance(obj, Commit):
                    commits[obj.id] = obj

        def raw(oid: bytes) -> tuple[int, bytes]:
            for pack in packs:
                if oid in pack:
                    type_num, data = pack.get_raw(oid)
                    return type_num, data
            raise KeyError(oid)

        return cls(ids, commits, raw)

    @classmethod
    def of_objects(cls, objects: dict[bytes, ShaFile]) -> Merge:
        return cls(set(objects), {k: v for k, v in objects.items() if isinstance(v, Commit)},
                   lambda oid: (objects[oid].type_num, objects[oid].as_raw_string()))

    def get(self, oid: bytes) -> ShaFile:
        type_num, data = self.raw(oid)
        return ShaFile.from_raw_string(type_num, data, sha=ObjectID(oid))


def merge_count(sizes: list[int]) -> int:
    """How many of the smallest packs (``sizes``: their objects, ascending) a merge takes: up to the last one
    that holds at most twice as many objects as all the smaller ones together. What stays is a geometric
    series of packs, each rewritten only when the packs written after it add up to half its size."""
    total = count = 0
    for i, size in enumerate(sizes):
        if i and size <= 2 * total:
            count = i + 1
        total += size
    return count


def delta_records(merge: Merge) -> Iterator[UnpackedObject]:
    """Every object as a pack record: each version of a path a delta from the next version, the newest a delta
    from the newest of the path before it in the same folder (or whole), at most :data:`MAX_DEPTH` deep.

    The paths come from the commits among the objects, followed from the
    newest back (the history is linear; a merge of the small packs need not
    hold the newest commit of all). Records come path by path, each path's
    versions newest first, so a base precedes its deltas (offset deltas,
    which every git reads) and only a version and its base are held at a
    time. An object no commit among them names (a commit, a parent tree kept
    in an older pack) is written whole.
    """
    versions = _versions(merge)
    on_paths = {sha for shas in versions.values() for sha in shas}
    for oid in sorted(merge.ids - on_paths):
        yield full_unpacked_object(merge.get(oid))
    depth: dict[bytes, int] = {}
    held: dict[bytes, bytes] = {}  # the bytes of the few bases still to be used: each path's last, each folder's
    sibling: dict[tuple[bytes, int], bytes] = {}  # (folder, type) -> the newest version of the last path in it
    for path in sorted(versions):
        shas = versions[path]
        type_num, newest = merge.raw(shas[-1])
        key = (path.rpartition(b"/")[0], type_num)
        newer: bytes | None = sibling.get(key)  # a new note is much like its neighbour (two session notes)
        sibling[key] = shas[-1]
        data: bytes | None = newest
        for sha in reversed(shas):  # newest first
            if data is None:
                type_num, data = merge.raw(sha)
            if sha not in depth:
                base = newer if newer is not None and depth[newer] < MAX_DEPTH else None
                depth[sha] = depth[base] + 1 if base is not None else 0
                yield _record(type_num, sha, data, base, held.get(base) if base is not None else None, merge)
            held = {k: v for k, v in held.items() if k in sibling.values()}  # a folder's newest stays
            held[sha] = data
            newer, data = sha, None
    return


def _record(type_num: int, sha: bytes, data: bytes, base: bytes | None, base_data: bytes | None,
            merge: Merge) -> UnpackedObject:
    if base is not None:
        if base_data is None:
            base_data = merge.raw(base)[1]
        delta = b"".join(create_delta(base_data, data))
        if len(delta) < len(data):
            return UnpackedObject(type_num, delta_base=bytes.fromhex(base.decode()), decomp_chunks=[delta],
                                  decomp_len=len(delta), sha=bytes.fromhex(sha.decode()))
    return full_unpacked_object(ShaFile.from_raw_string(type_num, data, sha=ObjectID(sha)))


def _versions(merge: Merge) -> dict[bytes, list[bytes]]:
    """Path (``b""`` for the root tree) -> the ids it held among the merge's objects, oldest first.

    Walked from the newest commit back: an older version of a big tree is
    stored as a delta of the newer one, which the pack reader still holds."""
    among = merge.commits
    parents = {c.parents[0] for c in among.values() if c.parents}
    commits: list[Commit] = []  # newest first
    for tip in [oid for oid in among if oid not in parents]:
        oid: bytes | None = tip
        while oid is not None and oid in among:
            commits.append(among[oid])
            oid = among[oid].parents[0] if among[oid].parents else None
    versions: dict[bytes, list[bytes]] = {}  # newest first until the end
    seen: set[tuple[bytes, bytes]] = set()

    def note(path: bytes, sha: bytes) -> None:
        held = versions.setdefault(path, [])
        if not held or held[-1] != sha:
            held.append(sha)

    def walk(path: bytes, tree_id: bytes) -> None:
        if (path, tree_id) in seen or tree_id not in merge.ids:
            return  # walked already, or kept in an older pack (and so is all it holds)
        tree = merge.get(tree_id)
        if not isinstance(tree, Tree):
            return
        seen.add((path, tree_id))
        note(path, tree_id)
        for entry in tree.iteritems():
            sub = path + b"/" + entry.path
            if stat.S_ISDIR(entry.mode):
                walk(sub, entry.sha)
            elif entry.sha in merge.ids:
                note(sub, entry.sha)

    for commit in commits:
        walk(b"", commit.tree)
    return {path: shas[::-1] for path, shas in versions.items()}


def _swap(store, old: list, keep: str) -> None:
    """Drop the packs the one named ``keep`` replaces (never that one, which may share a name with one of them)."""
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
    """Whether a merge is due: ``min_packs`` packs or more (read from the .idx headers), and a merge would take
    two or more of them (:func:`merge_count`)."""
    counts = sorted(pack_objects(history))
    return len(counts) >= min_packs and merge_count(counts) >= 2


def open_fds(pid: int | None = None) -> int:
    """How many file descriptors a process holds (Linux); for tests and the load benchmark."""
    return len(os.listdir(f"/proc/{pid or os.getpid()}/fd"))


def main(argv: list[str]) -> None:
    """``python -m horma.history_packs WORKSPACE``: merge its history's packs in a process of its own (a server's
    upkeep runs it so: reading and rewriting packs is Python work that would hold the server's GIL)."""
    from horma.workspace import Workspace

    ws = Workspace.open(argv[0])
    compact(ws.meta / HISTORY_DIR, ws.writer)


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
