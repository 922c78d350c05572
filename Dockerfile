# The horma sandbox: where memory agents run their bash commands.
#
# With a registry: `docker build -t horma-sandbox:latest .`
# Offline: `bash scripts/setup-sandbox.sh` first builds a debootstrap base,
# tags it debian:bookworm-slim, then builds this file unchanged.
# horma starts it with no network, a read-only root, tmpfs /tmp, pids/memory/
# CPU limits, every capability dropped, and the workspace bind-mounted at /ws.
FROM debian:bookworm-slim
# What scripts/setup-sandbox.sh prunes once a rebuild has left an image of this file untagged
LABEL org.horma.sandbox="1"

# The offline base already carries these; a registry base gets them from apt.
RUN if ! command -v rg >/dev/null || ! command -v python3 >/dev/null || ! command -v gawk >/dev/null \
       || ! command -v ps >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends ripgrep python3 gawk procps \
      && rm -rf /var/lib/apt/lists/*; \
    fi

# A dedicated non-root user for workspaces owned by root; horma runs the shell
# as the workspace owner's uid when that is not root.
RUN echo 'horma:x:10001:10001:horma sandbox:/ws:/bin/bash' >> /etc/passwd \
    && echo 'horma:x:10001:' >> /etc/group \
    && mkdir -p /ws /opt/horma/bin /opt/horma/lib/horma/core

# Helper commands (ranked search and friends). horma also bind-mounts the
# repository's sandbox/bin over this, so helpers stay current without a rebuild.
COPY sandbox/ /opt/horma/
# The stdlib-only core the helpers import (horma.core, a namespace package under lib/); horma
# bind-mounts the installed one over it too.
COPY horma/core/ /opt/horma/lib/horma/core/

ENV PATH=/opt/horma/bin:/usr/local/bin:/usr/bin:/bin \
    LANG=C.UTF-8 \
    HOME=/ws
WORKDIR /ws
USER 10001:10001
CMD ["sleep", "infinity"]
