#!/usr/bin/env bash
# Make the docker and bwrap sandboxes available on this machine, offline.
#
# Idempotent; run as root (CI does, on a clean machine). It installs what is
# missing (docker.io bubblewrap ripgrep debootstrap git gcc g++), starts dockerd when no
# engine answers, builds a Debian bookworm base with debootstrap (no image
# registry needed, only a Debian mirror), imports it under the tag the
# Dockerfile's FROM names, and builds the Dockerfile unchanged as
# horma-sandbox:latest. The debootstrap tarball is cached, so reruns take
# seconds. A machine with a registry can skip all this and just run
# `docker build -t horma-sandbox:latest .`.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BASE_TAG=${HORMA_BASE_TAG:-debian:bookworm-slim} # must equal the Dockerfile's FROM
IMAGE=${HORMA_SANDBOX_IMAGE:-horma-sandbox:latest}
CACHE=${HORMA_CACHE:-/var/cache/horma}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
BASE_TAR=$CACHE/bookworm-minbase.tar
INCLUDE=bash,coreutils,grep,sed,findutils,gawk,ripgrep,python3,procps

log() { echo "setup-sandbox: $*" >&2; }

if [ "$(id -u)" != 0 ]; then
  log "must run as root (try: sudo bash $0)"
  exit 1
fi

# Check for each binary this script (or the test suite) runs, by its own name:
# a `docker` client without the `dockerd` engine is common (a client-only
# install, a remote DOCKER_HOST), and it is the engine this script starts.
missing=()
need() { command -v "$1" >/dev/null || missing+=("$2"); }
need dockerd docker.io
need containerd docker.io   # dockerd starts it; docker.io depends on it
need docker docker.io
need bwrap bubblewrap
need rg ripgrep
need debootstrap debootstrap
need git git                # tests read the notes history with git (fsck) as any user would
need gcc gcc                # pip compiles llama.cpp for the `local` extra (no Linux wheel on PyPI)
need g++ g++
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u | sed '/^$/d')
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if ! docker info >/dev/null 2>&1; then
  log "starting dockerd (log: /var/log/horma-dockerd.log)"
  command -v dockerd >/dev/null || { log "dockerd is not installed and no engine answers"; exit 1; }
  nohup dockerd >/var/log/horma-dockerd.log 2>&1 &
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  docker info >/dev/null 2>&1 || { log "dockerd did not come up; see /var/log/horma-dockerd.log"; exit 1; }
fi

if ! docker image inspect "$BASE_TAG" >/dev/null 2>&1; then
  if [ ! -s "$BASE_TAR" ]; then
    log "building a Debian bookworm base with debootstrap from $MIRROR"
    mkdir -p "$CACHE"
    root=$(mktemp -d "$CACHE/rootfs.XXXXXX")
    trap 'rm -rf "$root"' EXIT
    debootstrap --variant=minbase --include="$INCLUDE" bookworm "$root" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
      || { log "debootstrap failed; see $CACHE/debootstrap.log"; exit 1; }
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -cf "$BASE_TAR.part" .
    mv "$BASE_TAR.part" "$BASE_TAR"
    rm -rf "$root"
    trap - EXIT
  fi
  log "importing the base as $BASE_TAG"
  docker import "$BASE_TAR" "$BASE_TAG" >/dev/null
fi

log "building $IMAGE from $REPO/Dockerfile"
docker build -q -t "$IMAGE" "$REPO" >/dev/null
# A code change rebuilds the image and leaves the one it replaced untagged: remove every such image of this
# Dockerfile, or each run leaves one more behind (one a container still runs stays until the next run).
docker image prune -f --filter "label=org.horma.sandbox=1" >/dev/null 2>&1 || true
log "ready: $IMAGE"
