#!/usr/bin/env bash
# Builds the real node's images without a registry, as docker-archives for containerd:
#   the pause (sandbox) image and two tags of a busybox test image, from Debian's busybox-static.
# Needs root (buildah). Usage: build-node-images.sh <out dir> <pause ref> <test ref>...
# TEST_IMAGE_CMD: the test images' command (default /bin/sh; a JSON array for exec form).
# Prints one archive path per image on stdout; skips archives already there.
set -euo pipefail
out=$1; shift
cache_root="${CLONESET_SUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cloneset-suite}"
storage=(--root "$cache_root/buildah/storage" --runroot "$cache_root/buildah/run" --storage-driver vfs)
busybox=$(command -v busybox)
mkdir -p "$out"
n=0
for ref in "$@"; do
  n=$((n + 1))
  tar="$out/$(printf '%s' "$ref" | tr '/:' '__').tar"
  if [ ! -s "$tar" ]; then
    ctr=$(buildah "${storage[@]}" from scratch)
    root=$(buildah "${storage[@]}" mount "$ctr")
    mkdir -p "$root/bin" "$root/tmp" "$root/etc"
    install -m 0755 "$busybox" "$root/bin/busybox"
    for applet in sh sleep cat ls echo httpd wget touch rm; do ln -s busybox "$root/bin/$applet"; done
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/sh\n' > "$root/etc/passwd"
    if [ "$n" -eq 1 ]; then
      # The sandbox only holds the pod's namespaces; the runtime kills it (SIGKILL) on teardown.
      buildah "${storage[@]}" config --entrypoint '["/bin/sleep","2147483647"]' --cmd '' "$ctr"
    else
      # Each tag its own image ID (the label differs), as two releases of one image would have.
      buildah "${storage[@]}" config --env PATH=/bin --label "cloneset-suite.io/test-image=$ref" --cmd "${TEST_IMAGE_CMD:-/bin/sh}" "$ctr"
    fi
    buildah "${storage[@]}" commit --quiet "$ctr" "$ref" >/dev/null
    buildah "${storage[@]}" rm "$ctr" >/dev/null
    buildah "${storage[@]}" push --quiet "$ref" "docker-archive:$tar.tmp:$ref" >&2
    mv "$tar.tmp" "$tar"
  fi
  echo "$tar"
done
