#!/usr/bin/env bash
# Runs OpenKruise's own CloneSet e2e specs against a `npm run deploy:local` release, their pods on
# the cluster's real node (containerd + runc), so the specs that need real containers run too.
# Nothing of OpenKruise is copied: its test/e2e is built from a checkout the caller gives.
#
# Usage: CLONESET_SUITE_CLUSTER_NAME=NAME run-on-real-node.sh <kruise checkout> [ginkgo flags...]
#   e.g. run-on-real-node.sh ~/src/kruise --ginkgo.focus='hostNetwork|imageID'
# Needs root (the node's containerd), Go, and the Go module proxy the first time.
#
# - The specs' images (nginx, redis, busybox from registry.k8s.io and docker.io) are stood in for
#   by Debian's busybox-static under the same names, imported into the node's containerd, so
#   nothing is pulled. nginx:alpine and nginx:mainline-alpine are one image (a spec requires the
#   same imageID for both).
# - real-node-policy.yaml (a MutatingAdmissionPolicy) gives the pods of the framework's
#   namespaces (labelled e2e-run) the real node's toleration and nodeSelector.
set -euo pipefail
kruise=${1:?usage: run-on-real-node.sh <kruise checkout> [ginkgo flags...]}
shift
name=${CLONESET_SUITE_CLUSTER_NAME:?CLONESET_SUITE_CLUSTER_NAME names the deploy:local cluster}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kubeconfig=$repo/.cluster/$name/kubeconfig
cache_root="${CLONESET_SUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cloneset-suite}"
socket=$cache_root/real-node/$name/containerd/containerd.sock
[ -s "$kubeconfig" ] || { echo "no $kubeconfig: run npm run deploy:local -- --cluster=$name first" >&2; exit 1; }
[ -S "$socket" ] || { echo "no containerd at $socket: cluster $name has no real node" >&2; exit 1; }

version=$(git -C "$kruise" describe --tags --always)
bin=$cache_root/kruise-e2e/$version/e2e.test
if [ ! -x "$bin" ]; then
  echo "building OpenKruise $version test/e2e into $bin..." >&2
  mkdir -p "$(dirname "$bin")"
  (cd "$kruise" && go test -c -o "$bin" ./test/e2e)
fi

# Servers (nginx, redis) idle until SIGTERM; busybox runs sh, which exits at once without a
# terminal, as the real image's does (a spec relies on that container failing).
servers=(
  registry.k8s.io/e2e-test-images/nginx:1.14-4
  registry.k8s.io/e2e-test-images/nginx:1.15-4
  registry.k8s.io/e2e-test-images/redis:5.0.5-3
  docker.io/library/nginx:alpine
)
idle='["/bin/sh","-c","trap \"exit 0\" TERM; while sleep 1; do :; done"]'
ctr=(ctr --address "$socket" --namespace k8s.io)
build() {
  # The first ref is the node's pause image, already built: the script skips archives it has.
  bash "$repo/packages/local-cluster/scripts/build-node-images.sh" "$cache_root/node-images" localhost/cloneset-suite/pause:1 "$@" | tail -n +2
}
{ TEST_IMAGE_CMD=$idle build "${servers[@]}"; build registry.k8s.io/e2e-test-images/busybox:1.36.1-1; } |
  while read -r archive; do "${ctr[@]}" images import "$archive" >/dev/null; done
"${ctr[@]}" images tag --force docker.io/library/nginx:alpine docker.io/library/nginx:mainline-alpine >/dev/null

kubectl --kubeconfig "$kubeconfig" apply -f "$here/real-node-policy.yaml"
# The policy's binding is read by the apiserver a moment after it is written.
sleep 2
cd "$(dirname "$bin")"
KUBECONFIG=$kubeconfig "$bin" -ginkgo.label-filter=CloneSet -ginkgo.v -ginkgo.no-color "$@"
