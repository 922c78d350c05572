"""The ``docker`` backend: one long-lived container per session, one shell in it.

The container (image ``horma-sandbox:latest``, see the Dockerfile) has no
network, a read-only root, a small tmpfs /tmp, pids/memory/CPU limits, no
capabilities and no-new-privileges; the workspace view is bind-mounted at
/ws, ``.horma/`` in it covered by an empty, read-only, root-owned tmpfs (its
``mode=0000`` does not hold: runc gives a tmpfs the mode of the folder it
covers), and the search index at /opt/horma/index (docker creates that mount
point under the read-only root). Its main process is ``sleep`` as ``nobody`` under docker's init, so the
sandbox user cannot stop the container by killing its own processes. The
persistent shell is ONE ``docker exec -i`` process (about a millisecond a
command) rather than an exec per command (tens of milliseconds).

After a timeout (or a shell killed by a limit) the container is restarted,
which ends every process the command left, fork bombs included; closing the
session removes the container, and opening one removes the containers of
sessions whose process was killed before it could close them. Any number of
processes (workers, users) may hold sessions at once: a container is labelled
with its owner's pid, start time, pid namespace, host and boot id, and is
reaped only when that owner is provably gone (:func:`owner_gone`).
"""

from __future__ import annotations

import builtins
import contextlib
import os
import shutil
import socket
from pathlib import Path

from horma.sandbox import BackendStatus, Limits, SandboxError, View
from horma.sandbox.base import ShellSandbox
from horma.sandbox.shell import PersistentShell
from horma.sandbox.views import (
    HIDDEN,
    SANDBOX_ROOT,
    Identity,
    mounts,
    prepare_index,
    prepare_write_view,
    shell_env,
    workspace_identity,
)

IMAGE = "horma-sandbox:latest"
LABEL = "horma.sandbox"
SETUP_CMD = "`sudo bash scripts/setup-sandbox.sh`"  # installs the engine, starts it, builds the image
SETUP_HINT = f"run {SETUP_CMD}"
TMPFS_MB = 64
# How long the availability probe waits for each answer of an engine that is up: a refused or missing socket fails
# at once, so this bounds a busy engine (a loaded CI machine, a laptop waking up), which must not read as "no
# docker" (3 s did, in CI), and a hung one, which `auto` then passes over for bwrap after this long.
PROBE_TIMEOUT_S = 10
MASK_TMPFS = "ro,nosuid,nodev,noexec,size=4k,mode=0000"  # what covers each HIDDEN folder
# What the docker CLI itself may see of the host environment (it forwards none of it).
_CLIENT_ENV = ("PATH", "HOME", "DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "DOCKER_CERT_PATH",
               "DOCKER_TLS_VERIFY")


def status() -> BackendStatus:
    if shutil.which("docker") is None:
        return BackendStatus("docker", False, f"docker CLI not found; {SETUP_HINT}")
    try:
        import docker
        from docker.errors import DockerException, ImageNotFound

        client = docker.from_env(timeout=PROBE_TIMEOUT_S)
        try:
            client.ping()
            client.images.get(IMAGE)
        finally:
            client.close()
    except ImageNotFound:
        return BackendStatus("docker", False, f"image {IMAGE} is missing; {SETUP_HINT}")
    except DockerException as exc:
        return BackendStatus("docker", False, engine_problem(exc))
    return BackendStatus("docker", True, f"engine up, image {IMAGE} present")


def engine_problem(exc: BaseException) -> str:
    """What a failed connection to the docker engine means for the user, and the command that fixes it.

    The SDK wraps the cause (``ConnectionRefusedError`` inside urllib3 inside
    requests) in a message no user should have to read.
    """
    text = str(exc)
    if "Permission denied" in text or "PermissionError" in text:
        return ("no permission to use the docker socket: run `sudo usermod -aG docker $USER` and log in again "
                "(or run horma as root)")
    if any(s in text for s in ("Connection refused", "ConnectionRefusedError", "FileNotFoundError",
                               "No such file or directory")):
        return ("the docker daemon is not running: start it with `sudo systemctl start docker` (without systemd: "
                f"{SETUP_CMD}; on macOS: open Docker Desktop)")
    if "timed out" in text or "Timeout" in text:
        return (f"the docker engine did not answer within {PROBE_TIMEOUT_S} s: it is up but busy or hung; "
                "check `docker info`")
    first = text.splitlines()[0] if text else type(exc).__name__
    return f"docker engine not reachable ({first[:160]}); {SETUP_HINT}"


class DockerSandbox(ShellSandbox):
    backend = "docker"
    isolated = True

    def __init__(self, workspace: Path, view: View, limits: Limits, shell: PersistentShell, client, container):
        super().__init__(workspace, view, limits, shell, home=SANDBOX_ROOT)
        self.client = client
        self.container = container

    def _cleanup(self) -> None:
        """Restart the container after a timeout; remove it when the session closes."""
        from docker.errors import DockerException, NotFound

        if not self._closed:
            self.container.restart(timeout=0)
            return
        try:
            self.container.remove(force=True)
        except NotFound:
            pass
        except DockerException as exc:
            raise SandboxError(f"could not remove sandbox container {self.container.short_id}: {exc}") from exc
        finally:
            self.client.close()


def _read(path: str) -> str:
    try:
        with builtins.open(path, encoding="ascii", errors="replace") as fh:
            return fh.read().strip()
    except OSError:
        return ""


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot (``/proc/PID/stat`` field 22); '' when unreadable.

    A pid the kernel gave to another process since has another start time.
    """
    stat = _read(f"/proc/{pid}/stat")
    fields = stat.rpartition(")")[2].split()  # the command name in parentheses may hold spaces
    return fields[19] if len(fields) > 19 else ""


def owner_labels() -> dict[str, str]:
    """Who owns a container: this process, on this host, since this boot, in this pid namespace."""
    pid = os.getpid()
    return {f"{LABEL}.pid": str(pid), f"{LABEL}.host": socket.gethostname(),
            f"{LABEL}.boot": _read("/proc/sys/kernel/random/boot_id"), f"{LABEL}.start": _start_time(pid),
            f"{LABEL}.pidns": _pid_namespace()}


def _pid_namespace() -> str:
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: alive (and /proc may hide it)
    return True


def owner_gone(labels: dict[str, str]) -> bool:
    """Whether the session that labelled a container can no longer close it: only then may another reap it.

    A container of another host, or of another pid namespace on this boot
    (another container or user namespace sharing the engine), is never
    judged: its pid means nothing here. A boot id that changed means the
    machine restarted, so every owner from before is gone. Otherwise the
    owner is gone when its pid is free or now belongs to a process started
    later (the start time differs).
    """
    mine = owner_labels()
    pid = labels.get(f"{LABEL}.pid", "")
    if labels.get(f"{LABEL}.host") != mine[f"{LABEL}.host"] or not pid.isdigit():
        return False
    boot = labels.get(f"{LABEL}.boot")
    if boot and mine[f"{LABEL}.boot"] and boot != mine[f"{LABEL}.boot"]:
        return True
    if labels.get(f"{LABEL}.pidns", mine[f"{LABEL}.pidns"]) != mine[f"{LABEL}.pidns"]:
        return False
    if not _alive(int(pid)):
        return True
    started = labels.get(f"{LABEL}.start")
    now = _start_time(int(pid))
    return bool(started and now and started != now)


def _prune_orphans(client) -> None:
    """Remove containers of sessions whose process died without closing them (killed runs), and no others."""
    from docker.errors import DockerException

    # The low-level list: the high-level one inspects every container it lists, and a container
    # another session closes in between made it fail with "404 No such container" (that session's
    # start failed with it).
    try:
        listed = client.api.containers(all=True, filters={"label": LABEL})
    except DockerException:
        return  # pruning is best effort: a failed listing must not stop this session from starting
    for c in listed:
        if owner_gone(c.get("Labels") or {}):
            with contextlib.suppress(DockerException):  # gone already, or another session is pruning it
                client.api.remove_container(c["Id"], force=True)


def _exec_argv(container_id: str, who: Identity, env: dict[str, str]) -> list[str]:
    argv = ["docker", "exec", "-i", "-u", f"{who.uid}:{who.gid}", "-w", SANDBOX_ROOT]
    for key, value in env.items():
        argv += ["-e", f"{key}={value}"]
    # stderr joins stdout inside the container, so both arrive in order before the end marker
    return [*argv, container_id, "bash", "--noprofile", "--norc", "-c", "exec bash --noprofile --norc 2>&1"]


def open(workspace: Path, view: View, limits: Limits,  # shadows the builtin open(): the backend protocol names it so
         near_socket: str | None = None) -> DockerSandbox:
    import docker
    from docker.errors import DockerException
    from docker.types import Mount, Ulimit

    who = workspace_identity(workspace)
    if view is View.WRITE:
        prepare_write_view(workspace, who)
    else:
        prepare_index(workspace)
    env = shell_env(near=near_socket is not None)
    file_bytes = limits.file_mb * 1024 * 1024
    try:
        client = docker.from_env(timeout=30)
    except DockerException as exc:
        raise SandboxError(f"could not start the docker sandbox: {engine_problem(exc)}") from exc
    try:
        _prune_orphans(client)
        container = client.containers.run(
            IMAGE,
            ["sleep", "infinity"],
            detach=True,
            init=True,
            user="65534:65534",
            working_dir=SANDBOX_ROOT,
            hostname="horma",
            network_mode="none",
            read_only=True,
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={TMPFS_MB}m,mode=1777"} | {t: MASK_TMPFS for t in HIDDEN},
            mounts=[
                Mount(m.target, str(m.host), type="bind", read_only=not m.writable)
                for m in mounts(workspace, view, near_socket)
            ],
            pids_limit=limits.pids,
            mem_limit=f"{limits.memory_mb}m",
            memswap_limit=f"{limits.memory_mb}m",
            nano_cpus=1_000_000_000,
            ulimits=[
                Ulimit(name="cpu", soft=limits.cpu_seconds, hard=limits.cpu_seconds),
                Ulimit(name="fsize", soft=file_bytes, hard=file_bytes),
            ],
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
            environment={},
            labels={LABEL: "1", f"{LABEL}.workspace": str(workspace), **owner_labels()},
        )
    except DockerException as exc:
        client.close()
        raise SandboxError(f"could not start the docker sandbox: {str(exc).splitlines()[0]}") from exc
    client_env = {k: os.environ[k] for k in _CLIENT_ENV if k in os.environ}
    shell = PersistentShell(_exec_argv(container.id, who, env), env=client_env, output_cap=limits.output_cap)
    sandbox = DockerSandbox(workspace, view, limits, shell, client, container)
    shell.start()
    return sandbox
