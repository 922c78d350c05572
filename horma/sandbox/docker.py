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
sessions whose process was killed before it could close them.
"""

from __future__ import annotations

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
SETUP_HINT = "run `sudo bash scripts/setup-sandbox.sh`"
TMPFS_MB = 64
MASK_TMPFS = "ro,nosuid,nodev,noexec,size=4k,mode=0000"  # what covers each HIDDEN folder
# What the docker CLI itself may see of the host environment (it forwards none of it).
_CLIENT_ENV = ("PATH", "HOME", "DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY")


def status() -> BackendStatus:
    if shutil.which("docker") is None:
        return BackendStatus("docker", False, f"docker CLI not found; {SETUP_HINT}")
    try:
        import docker
        from docker.errors import DockerException, ImageNotFound

        client = docker.from_env(timeout=3)
        try:
            client.ping()
            client.images.get(IMAGE)
        finally:
            client.close()
    except ImageNotFound:
        return BackendStatus("docker", False, f"image {IMAGE} is missing; {SETUP_HINT}")
    except DockerException as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return BackendStatus("docker", False, f"docker engine not reachable ({first}); {SETUP_HINT}")
    return BackendStatus("docker", True, f"engine up, image {IMAGE} present")


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


def _prune_orphans(client) -> None:
    """Remove containers of sessions whose process died without closing them (killed runs)."""
    from docker.errors import DockerException

    for c in client.containers.list(all=True, filters={"label": LABEL}):
        owner = c.labels.get(f"{LABEL}.pid", "")
        here = c.labels.get(f"{LABEL}.host") == socket.gethostname()
        if here and owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            try:
                c.remove(force=True)
            except DockerException:
                pass  # another session is pruning it


def _exec_argv(container_id: str, who: Identity, env: dict[str, str]) -> list[str]:
    argv = ["docker", "exec", "-i", "-u", f"{who.uid}:{who.gid}", "-w", SANDBOX_ROOT]
    for key, value in env.items():
        argv += ["-e", f"{key}={value}"]
    # stderr joins stdout inside the container, so both arrive in order before the end marker
    return argv + [container_id, "bash", "--noprofile", "--norc", "-c", "exec bash --noprofile --norc 2>&1"]


def open(workspace: Path, view: View, limits: Limits) -> DockerSandbox:  # noqa: A001 - the backend protocol
    import docker
    from docker.errors import DockerException
    from docker.types import Mount, Ulimit

    who = workspace_identity(workspace)
    if view is View.WRITE:
        prepare_write_view(workspace, who)
    else:
        prepare_index(workspace)
    env = shell_env()
    file_bytes = limits.file_mb * 1024 * 1024
    client = docker.from_env(timeout=30)
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
                for m in mounts(workspace, view)
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
            labels={LABEL: "1", f"{LABEL}.workspace": str(workspace), f"{LABEL}.pid": str(os.getpid()),
                    f"{LABEL}.host": socket.gethostname()},
        )
    except DockerException as exc:
        client.close()
        raise SandboxError(f"could not start the docker sandbox: {str(exc).splitlines()[0]}") from exc
    client_env = {k: os.environ[k] for k in _CLIENT_ENV if k in os.environ}
    shell = PersistentShell(_exec_argv(container.id, who, env), env=client_env, output_cap=limits.output_cap)
    sandbox = DockerSandbox(workspace, view, limits, shell, client, container)
    shell.start()
    return sandbox
