"""The ``bwrap`` backend: bubblewrap namespaces around one persistent shell.

The sandbox sees /usr (and the /bin, /lib symlinks) read-only, the two /etc
files the dynamic linker and ``awk`` need, its own /proc, /dev and a small
tmpfs /tmp, the workspace view at /ws (with ``.horma/`` covered by an
empty read-only tmpfs), the search index at /opt/horma/index and
the helper commands at /opt/horma/bin with horma.core at /opt/horma/lib; no network, no other process, nothing
else of the host.
Limits on processes, memory, CPU time and file size are set with ``ulimit``
inside, before the shell starts, so the sandbox cannot raise them.

bwrap always runs as a normal user. The kernel exempts root from the process
limit even inside a user namespace, so when horma runs as root it first
drops to the sandbox user with ``setpriv``. That user may not be able to
reach the workspace through its parent folders (``/root/...``), so a private
mount namespace, held only by this session, first binds the workspace and
the helpers onto a fresh tmpfs that it can reach.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from horma.sandbox import BackendStatus, Limits, View, safe_env
from horma.sandbox.base import ShellSandbox
from horma.sandbox.shell import PersistentShell
from horma.sandbox.views import (
    HIDDEN,
    SANDBOX_BIN_DIR,
    SANDBOX_CORE_DIR,
    SANDBOX_NEAR_SOCKET,
    SANDBOX_ROOT,
    Identity,
    Mount,
    mounts,
    prepare_index,
    prepare_write_view,
    shell_env,
    workspace_identity,
)

TMPFS_BYTES = 64 * 1024 * 1024
# Empty rather than mode 0000 (which bwrap could do): an unreadable folder makes every
# `grep -r X .` from /ws print "Permission denied" and exit 2, and docker cannot have one.
MASK_MODE = "0555"
STAGE_DIRS = ("/mnt", "/media", "/srv")  # where the root path mounts its staging tmpfs
HOST_FILES = ("/etc/ld.so.cache", "/etc/alternatives")  # shared libraries; awk & co. via alternatives
# Runs as root in the private mount namespace: hold the three folders open, cover
# STAGE with a tmpfs, bind them there through the held descriptors (their own
# paths may lie under STAGE or under folders the sandbox user cannot enter),
# then exec the rest of the command line (setpriv ... bwrap ...).
_STAGE_SCRIPT = """\
stage=$1 ws=$2 bin=$3 core=$4
shift 4
exec 3<"$ws" 4<"$bin" 5<"$core"
mount -t tmpfs -o mode=0755,size=16k horma-stage "$stage"
mkdir "$stage/ws" "$stage/bin" "$stage/core"
mount --no-canonicalize --bind /proc/self/fd/3 "$stage/ws"
mount --no-canonicalize --bind /proc/self/fd/4 "$stage/bin"
mount --no-canonicalize --bind /proc/self/fd/5 "$stage/core"
exec 3<&- 4<&- 5<&-
exec "$@"
"""


class BwrapSandbox(ShellSandbox):
    """Killing the shell kills bwrap, and with it the whole pid namespace: nothing to clean up."""

    backend = "bwrap"
    isolated = True


def _identity(workspace: Path) -> Identity:
    if os.geteuid() == 0:
        return workspace_identity(workspace)
    return Identity(os.geteuid(), os.getegid())  # unprivileged bwrap can only be ourselves


def _stage_dir() -> str:
    for d in STAGE_DIRS:
        if os.path.isdir(d) and not os.path.islink(d):
            return d
    raise RuntimeError(f"no staging folder for the bwrap sandbox: none of {', '.join(STAGE_DIRS)} exists")


def _inner_shell(limits: Limits) -> list[str]:
    limit = (
        f"ulimit -u {limits.pids} -v {limits.memory_mb * 1024} -t {limits.cpu_seconds}"
        f" -f {limits.file_mb * 1024} || exit 111"
    )
    return ["/usr/bin/bash", "--noprofile", "--norc", "-c", f"{limit}; exec bash --noprofile --norc 2>&1"]


def _bwrap(plan: list[Mount], who: Identity, inner: list[str], source) -> list[str]:
    args = [
        "bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL",
        "--die-with-parent", "--new-session", "--uid", str(who.uid), "--gid", str(who.gid),
        "--hostname", "horma", "--ro-bind", "/usr", "/usr",
    ]  # fmt: skip
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        top = Path("/") / name
        if top.is_symlink():
            args += ["--symlink", os.readlink(top), str(top)]
        elif top.is_dir():
            args += ["--ro-bind", str(top), str(top)]
    for f in HOST_FILES:
        if os.path.exists(f):
            args += ["--ro-bind", f, f]
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(TMPFS_BYTES), "--tmpfs", "/tmp"]
    for m in plan:
        args += ["--bind" if m.writable else "--ro-bind", source(m), m.target]
    for target in HIDDEN:  # empty and read-only (so its owner, the sandbox user, cannot fill it)
        args += ["--perms", MASK_MODE, "--size", "4096", "--tmpfs", target, "--remount-ro", target]
    return [*args, "--chdir", SANDBOX_ROOT, "--", *inner]


def command(workspace: Path, view: View, limits: Limits, inner: list[str] | None = None,
            near_socket: str | None = None) -> list[str]:
    """The argv that runs ``inner`` (default: the limited shell) in the sandbox.

    As root it is staged and dropped to the sandbox user (see the module docstring).
    """
    who = _identity(workspace)
    plan = mounts(workspace, view, near_socket)
    inner = inner or _inner_shell(limits)
    if os.geteuid() != 0:
        return _bwrap(plan, who, inner, lambda m: str(m.host))
    stage = _stage_dir()
    bin_dir = next((m.host for m in plan if m.target == SANDBOX_BIN_DIR), workspace)
    core_dir = next(m.host for m in plan if m.target == SANDBOX_CORE_DIR)

    def staged(m: Mount) -> str:
        if m.target == SANDBOX_BIN_DIR:
            return f"{stage}/bin"
        if m.target == SANDBOX_CORE_DIR:
            return f"{stage}/core"
        if m.target == SANDBOX_NEAR_SOCKET:  # outside the workspace, reachable by the sandbox user as it is
            return str(m.host)
        rel = m.host.relative_to(workspace).as_posix()
        return f"{stage}/ws" if rel == "." else f"{stage}/ws/{rel}"

    drop = [
        "setpriv", f"--reuid={who.uid}", f"--regid={who.gid}", "--clear-groups",
        "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--",
    ]  # fmt: skip
    return [
        "unshare", "--mount", "--propagation", "private", "--",
        "sh", "-c", _STAGE_SCRIPT, "horma-stage", stage, str(workspace), str(bin_dir), str(core_dir),
        *drop, *_bwrap(plan, who, inner, staged),
    ]  # fmt: skip


def status() -> BackendStatus:
    if shutil.which("bwrap") is None:
        return BackendStatus("bwrap", False, "bubblewrap not installed; run `sudo apt-get install bubblewrap`")
    with tempfile.TemporaryDirectory(prefix="horma-bwrap-check-") as tmp:
        os.chmod(tmp, 0o755)
        prepare_index(Path(tmp))
        argv = command(Path(tmp), View.READ, Limits(), inner=["/usr/bin/true"])
        try:
            proc = subprocess.run(argv, env=safe_env("/"), capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return BackendStatus("bwrap", False, f"trial sandbox failed: {exc}")
    if proc.returncode != 0:
        why = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        return BackendStatus("bwrap", False, f"trial sandbox failed: {why} (user namespaces disabled?)")
    return BackendStatus("bwrap", True, "bubblewrap works here")


def open(workspace: Path, view: View, limits: Limits,  # shadows the builtin open(): the backend protocol names it so
         near_socket: str | None = None) -> BwrapSandbox:
    if view is View.WRITE:
        prepare_write_view(workspace, _identity(workspace))
    else:
        prepare_index(workspace)
    shell = PersistentShell(command(workspace, view, limits, near_socket=near_socket),
                            env=shell_env(near=near_socket is not None), output_cap=limits.output_cap)
    sandbox = BwrapSandbox(workspace, view, limits, shell, home=SANDBOX_ROOT)
    shell.start()
    return sandbox
