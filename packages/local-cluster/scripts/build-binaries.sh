#!/usr/bin/env bash
# Builds the pinned control-plane binaries from their Go modules into a cache
# outside the repo. Skips what is already built. Safe to run concurrently-ish:
# each binary is built into a temp file and renamed into place.
#   build-binaries.sh [kubelet] [kube-proxy]   also builds those (the real node's), from the same
#                                              Kubernetes module as the control plane
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.8}"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
MIN_GO_MINOR=26 # k8s v1.36 and kwok v0.8 declare go 1.26

cache_root="${CLONESET_SUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cloneset-suite}"
bin_dir="${CLONESET_SUITE_BIN_DIR:-$cache_root/k8s-${KUBE_VERSION}_etcd-${ETCD_VERSION}_kwok-${KWOK_VERSION}/bin}"

log() { printf '[local-cluster] %s\n' "$*" >&2; }

kube_commands=(kube-apiserver kube-controller-manager kube-scheduler)
for extra in "$@"; do
  case "$extra" in
    kubelet|kube-proxy) kube_commands+=("$extra") ;;
    *) printf '[local-cluster] error: unknown binary "%s" (extras: kubelet, kube-proxy)\n' "$extra" >&2; exit 2 ;;
  esac
done
want=("${kube_commands[@]}" etcd kwok kwokctl)
missing=()
for b in "${want[@]}"; do [ -x "$bin_dir/$b" ] || missing+=("$b"); done
if [ ${#missing[@]} -eq 0 ]; then
  echo "$bin_dir"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  log "error: Go is required to build the local control plane (${missing[*]}), but 'go' is not on PATH."
  log "Install Go >= 1.${MIN_GO_MINOR} (https://go.dev/dl) or point CLONESET_SUITE_BIN_DIR at prebuilt binaries."
  exit 1
fi
go_minor=$(go env GOVERSION | sed -E 's/^go1\.([0-9]+).*/\1/')
if ! [[ "$go_minor" =~ ^[0-9]+$ ]] || [ "$go_minor" -lt "$MIN_GO_MINOR" ]; then
  log "error: Go $(go env GOVERSION) is too old; building Kubernetes ${KUBE_VERSION} needs Go >= 1.${MIN_GO_MINOR}."
  exit 1
fi

mkdir -p "$bin_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GOFLAGS="${GOFLAGS:--buildvcs=false} -trimpath"
export CGO_ENABLED=0
ldflags="-s -w"

build_in_module() { # <dir> <output name> <package>
  local dir=$1 out=$2 pkg=$3 started
  [ -x "$bin_dir/$out" ] && { log "$out: cached"; return 0; }
  started=$(date +%s)
  log "$out: building $pkg (first time only, takes minutes)..."
  (cd "$dir" && go build -ldflags "$ldflags" -o "$bin_dir/.$out.tmp" "$pkg")
  mv "$bin_dir/.$out.tmp" "$bin_dir/$out"
  log "$out: built in $(( $(date +%s) - started ))s"
}

# Kubernetes: its go.mod replaces k8s.io/* with ./staging, which 'go install' refuses;
# a generated module pins the published staging modules of the same release instead.
needs_kube=false
for b in "${kube_commands[@]}"; do [ -x "$bin_dir/$b" ] || needs_kube=true; done
if $needs_kube; then
  staging_version="v0${KUBE_VERSION#v1}"
  mkdir -p "$work/kube"
  log "kubernetes ${KUBE_VERSION}: resolving modules..."
  {
    echo "module local/kubebuild"
    echo
    echo "go 1.${MIN_GO_MINOR}"
    echo
    echo "require k8s.io/kubernetes ${KUBE_VERSION}"
    echo
    echo "replace ("
    curl -fsSL "$(go env GOPROXY | cut -d, -f1)/k8s.io/kubernetes/@v/${KUBE_VERSION}.mod" 2>/dev/null \
      | sed -n '/^replace (/,/^)/p' | grep -E '^\s+k8s.io/' | awk '{print $1}' \
      | grep -v 'sample-' | while read -r m; do echo "	$m => $m ${staging_version}"; done
    echo ")"
  } > "$work/kube/go.mod"
  if ! grep -q 'k8s.io/api =>' "$work/kube/go.mod"; then
    # No direct proxy access (e.g. GOPROXY=direct): read go.mod through the go tool.
    go mod download -json "k8s.io/kubernetes@${KUBE_VERSION}" >/dev/null
    modfile=$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/${KUBE_VERSION}.mod
    {
      printf 'module local/kubebuild\n\ngo 1.%s\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$MIN_GO_MINOR" "$KUBE_VERSION"
      sed -n '/^replace (/,/^)/p' "$modfile" | grep -E '^\s+k8s.io/' | awk '{print $1}' \
        | grep -v 'sample-' | while read -r m; do echo "	$m => $m ${staging_version}"; done
      echo ")"
    } > "$work/kube/go.mod"
  fi
  { printf 'package main\n\nimport (\n'; for b in "${kube_commands[@]}"; do printf '\t_ "k8s.io/kubernetes/cmd/%s/app"\n' "$b"; done; printf ')\n\nfunc main() {}\n'; } > "$work/kube/tools.go"
  (cd "$work/kube" && go mod tidy >/dev/null 2>"$work/tidy.log") || { cat "$work/tidy.log" >&2; log "error: go mod tidy failed for kubernetes ${KUBE_VERSION}"; exit 1; }
  rm "$work/kube/tools.go"
  for b in "${kube_commands[@]}"; do
    build_in_module "$work/kube" "$b" "k8s.io/kubernetes/cmd/$b"
  done
fi

if [ ! -x "$bin_dir/etcd" ]; then
  mkdir -p "$work/etcd"
  printf 'module local/etcdbuild\n\ngo 1.%s\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$MIN_GO_MINOR" "$ETCD_VERSION" > "$work/etcd/go.mod"
  printf 'package main\n\nimport _ "go.etcd.io/etcd/server/v3/etcdmain"\n\nfunc main() {}\n' > "$work/etcd/tools.go"
  log "etcd ${ETCD_VERSION}: resolving modules..."
  (cd "$work/etcd" && go mod tidy >/dev/null 2>"$work/tidy.log") || { cat "$work/tidy.log" >&2; log "error: go mod tidy failed for etcd ${ETCD_VERSION}"; exit 1; }
  rm "$work/etcd/tools.go"
  build_in_module "$work/etcd" etcd go.etcd.io/etcd/server/v3
fi

for b in kwok kwokctl; do
  if [ ! -x "$bin_dir/$b" ]; then
    started=$(date +%s)
    log "$b: building sigs.k8s.io/kwok/cmd/$b@${KWOK_VERSION}..."
    GOBIN="$work/gobin" go install -ldflags "$ldflags -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION#v} -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=${KUBE_VERSION#v}" "sigs.k8s.io/kwok/cmd/$b@${KWOK_VERSION}"
    mv "$work/gobin/$b" "$bin_dir/$b"
    log "$b: built in $(( $(date +%s) - started ))s"
  fi
done

log "binaries ready in $bin_dir"
echo "$bin_dir"
