#!/usr/bin/env bash
# Builds the controller-manager image from the repo's Dockerfile without a container registry:
# buildah (Debian's, installed when absent) builds FROM a base assembled here from the checkout's
# pinned Node 24 (the `node` npm package), the glibc libraries it links against, npm and a
# busybox shell, and writes the image as a docker-archive that containerd imports.
# Needs root (buildah's chroot isolation, apt-get). Prints the archive's path on stdout.
#   IMAGE      the image reference (default localhost/cloneset-suite/controller-manager:local)
#   IMAGE_TAR  where the docker-archive goes (default <cache>/image/controller-manager.tar)
set -euo pipefail

repo_root=$(cd "$(dirname "$0")/../../.." && pwd)
cache_root="${CLONESET_SUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cloneset-suite}"
image="${IMAGE:-localhost/cloneset-suite/controller-manager:local}"
image_tar="${IMAGE_TAR:-$cache_root/image/controller-manager.tar}"
# A storage of its own: another buildah or podman on the machine may use another driver.
storage=(--root "$cache_root/buildah/storage" --runroot "$cache_root/buildah/run" --storage-driver vfs)

log() { printf '[image] %s\n' "$*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
  log "error: building the image here needs root (buildah's chroot isolation and apt-get); run it as root,"
  log "or build the Dockerfile with docker/podman from node:24-slim: docker build -t $image ."
  exit 1
fi

ensure_debian_packages() { # <command> <package>...
  local missing=() cmd pkg
  while [ $# -gt 0 ]; do
    cmd=$1 pkg=$2; shift 2
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} (Debian packages)..."
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 \
    || { apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2; }
}
ensure_debian_packages buildah buildah busybox busybox-static

node_bin="$repo_root/node_modules/node/bin/node"
[ -x "$node_bin" ] || { log "error: $node_bin is missing; run npm install first (the root devDependency 'node' pins Node 24)"; exit 1; }
node_version=$("$node_bin" --version)
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
[ -f "$npm_dir/bin/npm-cli.js" ] || { log "error: no npm installation found (looked at $npm_dir)"; exit 1; }
npm_version=$(node -p "require('$npm_dir/package.json').version")
base="localhost/cloneset-suite/node-base:${node_version}-npm${npm_version}"

started=$(date +%s)
if ! buildah "${storage[@]}" inspect --type image "$base" >/dev/null 2>&1; then
  log "assembling the base $base (Node $node_version from node_modules, its glibc libraries, npm $npm_version, busybox)..."
  ctr=$(buildah "${storage[@]}" from scratch)
  trap 'buildah "${storage[@]}" rm "$ctr" >/dev/null 2>&1 || true' EXIT
  root=$(buildah "${storage[@]}" mount "$ctr")
  mkdir -p "$root/usr/local/bin" "$root/usr/local/lib/node_modules" "$root/bin" "$root/usr/bin" "$root/tmp" "$root/etc"
  chmod 1777 "$root/tmp"
  install -m 0755 "$node_bin" "$root/usr/local/bin/node"
  # The dynamic loader and every library the binary links against, at the paths ldd resolves.
  for lib in $(ldd "$node_bin" | grep -oE '/[^ ]+'); do
    mkdir -p "$root$(dirname "$lib")"
    cp -L "$lib" "$root$lib"
  done
  cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  # A shell for the Dockerfile's RUN lines and env for npm's shebang, as node:24-slim has them.
  install -m 0755 "$(command -v busybox)" "$root/bin/busybox"
  for applet in sh rm ls cat; do ln -s busybox "$root/bin/$applet"; done
  ln -s ../../bin/busybox "$root/usr/bin/env"
  printf 'root:x:0:0:root:/root:/bin/sh\nnonroot:x:65532:65532:nonroot:/home/nonroot:/bin/sh\n' > "$root/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' > "$root/etc/group"
  buildah "${storage[@]}" config --env PATH=/usr/local/bin:/usr/bin:/bin --cmd node "$ctr"
  buildah "${storage[@]}" commit --quiet "$ctr" "$base" >/dev/null
  buildah "${storage[@]}" rm "$ctr" >/dev/null
  trap - EXIT
fi

log "building $image from the Dockerfile (FROM $base)..."
# The machine's trusted roots reach npm's requests in the build stage only (the Dockerfile's extra-ca).
ca_bundle="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
secret=()
[ -s "$ca_bundle" ] && secret=(--secret "id=extra-ca,src=$ca_bundle")
buildah "${storage[@]}" bud --isolation chroot --quiet --pull=never "${secret[@]}" \
  --build-arg "NODE_IMAGE=$base" -t "$image" -f "$repo_root/Dockerfile" "$repo_root" >&2
mkdir -p "$(dirname "$image_tar")"
rm -f "$image_tar.tmp"
buildah "${storage[@]}" push --quiet "$image" "docker-archive:$image_tar.tmp:$image" >&2
mv "$image_tar.tmp" "$image_tar"
log "built $image in $(( $(date +%s) - started ))s: $image_tar"
echo "$image_tar"
