#!/usr/bin/env bash
# Builds the sharder of kubernetes-controller-sharding (github.com/timebertt/kubernetes-controller-sharding)
# at one pinned commit, from a copy of its repository the user provides, into the cache beside the
# control-plane binaries; its ControllerRing CRD is taken from the same commit. Skips what is built.
#   build-sharder.sh [SOURCE]   SOURCE (or $SHARDER_SOURCE): a clone of the repository, or its bare
#                               git directory; needed only for the first build
# Prints the directory holding bin/sharder and controllerrings.yaml.
# Its Go module is not needed from the module proxy: the source is built as a checkout, its
# dependencies come from the proxy.
set -euo pipefail

SHARDER_VERSION=v0.13.0
SHARDER_COMMIT=4d73fd1fd98fa2ec6c628e82f41ffef47ac3d991 # the tag v0.13.0
CRD_PATH=config/crds/sharding.timebertt.dev_controllerrings.yaml

cache_root="${CLONESET_SUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cloneset-suite}"
out_dir="$cache_root/sharder-${SHARDER_VERSION}"
log() { printf '[sharder] %s\n' "$*" >&2; }

if [ -x "$out_dir/bin/sharder" ] && [ -s "$out_dir/controllerrings.yaml" ]; then
  echo "$out_dir"
  exit 0
fi

source_dir="${1:-${SHARDER_SOURCE:-}}"
if [ -z "$source_dir" ]; then
  log "error: the sharder ${SHARDER_VERSION} is not built yet and no source was given."
  log "Clone it once and pass its path:"
  log "  git clone https://github.com/timebertt/kubernetes-controller-sharding /some/dir"
  log "  SHARDER_SOURCE=/some/dir npm start -- --shards=3   (or: bash $0 /some/dir)"
  exit 1
fi
if git --git-dir="$source_dir" rev-parse --git-dir >/dev/null 2>&1; then
  git_dir="$source_dir"
elif git -C "$source_dir" rev-parse --git-dir >/dev/null 2>&1; then
  git_dir="$(git -C "$source_dir" rev-parse --absolute-git-dir)"
else
  log "error: $source_dir is neither a git clone of kubernetes-controller-sharding nor its git directory"
  exit 1
fi
if ! git --git-dir="$git_dir" cat-file -e "${SHARDER_COMMIT}^{commit}" 2>/dev/null; then
  log "error: $source_dir does not hold commit ${SHARDER_COMMIT} (${SHARDER_VERSION}); fetch its tags (git fetch --tags)"
  exit 1
fi
if ! command -v go >/dev/null 2>&1; then
  log "error: Go is required to build the sharder, but 'go' is not on PATH."
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git --git-dir="$git_dir" archive "$SHARDER_COMMIT" | tar -x -C "$work"
mkdir -p "$out_dir/bin"
started=$(date +%s)
log "building cmd/sharder at ${SHARDER_VERSION} (${SHARDER_COMMIT:0:12}; first time only)..."
# GOWORK=off: the repository's go.work adds its sample operator's module, which the sharder does not need.
(cd "$work" && GOWORK=off CGO_ENABLED=0 go build -buildvcs=false -trimpath -ldflags "-s -w" -o "$out_dir/bin/.sharder.tmp" ./cmd/sharder)
cp "$work/$CRD_PATH" "$out_dir/.controllerrings.yaml.tmp"
mv "$out_dir/bin/.sharder.tmp" "$out_dir/bin/sharder"
mv "$out_dir/.controllerrings.yaml.tmp" "$out_dir/controllerrings.yaml"
echo "${SHARDER_COMMIT}" > "$out_dir/commit"
log "built in $(( $(date +%s) - started ))s into $out_dir"
echo "$out_dir"
