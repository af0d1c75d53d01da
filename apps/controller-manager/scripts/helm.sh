#!/usr/bin/env bash
# Prints the path of a helm binary: $HELM, helm on PATH, or one built once from its Go module
# into the cache outside the repo (no downloads besides the Go module proxy).
set -euo pipefail
HELM_VERSION="${HELM_VERSION:-v3.19.0}"
CACHE="${CLONESET_SUITE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cloneset-suite}/helm/${HELM_VERSION}"
if [[ -n "${HELM:-}" && -x "${HELM}" ]]; then echo "$HELM"; exit 0; fi
if command -v helm >/dev/null 2>&1; then command -v helm; exit 0; fi
if [[ -x "$CACHE/bin/helm" ]]; then echo "$CACHE/bin/helm"; exit 0; fi
if [[ "${1:-}" != "--build" ]]; then echo "helm not found (run: bash apps/controller-manager/scripts/helm.sh --build)" >&2; exit 1; fi
command -v go >/dev/null 2>&1 || { echo "go is needed to build helm" >&2; exit 1; }
mkdir -p "$CACHE/bin"
echo "building helm ${HELM_VERSION} from its Go module into $CACHE/bin ..." >&2
GOBIN="$CACHE/bin" go install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}" >&2
echo "$CACHE/bin/helm"
