#!/usr/bin/env bash
# Builds the real kind CLI (sigs.k8s.io/kind, the version below) from the Go module proxy, for provider-kind's
# tests, which run it against tools/fake-kind's docker stand-in. The binary's folder is the last line of stdout
# (everything else goes to stderr):
#   kind="$(tools/kind-cli/build.sh | tail -n1)/kind"
# A no-op when the binary was built from the same inputs; Go's build and module caches make a rebuild take seconds.
# Environment: MCR_KIND_CLI_DIR overrides the output folder; MCR_KIND_CLI_FORCE=1 rebuilds anyway.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version=v0.30.0

export GOTOOLCHAIN=local
export CGO_ENABLED="${CGO_ENABLED:-0}"
command -v go >/dev/null || { echo "build.sh: go not found on PATH (Go >= 1.26 is needed)" >&2; exit 2; }

out="${MCR_KIND_CLI_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/kind-cli/$version}"
mkdir -p "$out"
stamp="$( { go version; go env GOOS GOARCH CGO_ENABLED; cat "$here/build.sh"; } | sha256sum | cut -d' ' -f1)"

# Concurrent callers (several test files) wait for one build instead of racing on the folder.
if command -v flock >/dev/null; then
  exec 9>"$out/.lock"
  flock 9
fi

if [[ "${MCR_KIND_CLI_FORCE:-0}" != 1 && -x "$out/kind" && -f "$out/.stamp" && "$(cat "$out/.stamp")" == "$stamp" ]]; then
  echo "build.sh: $out/kind is up to date (sigs.k8s.io/kind $version)" >&2
  echo "$out"
  exit 0
fi

tmp="$(mktemp -d "$out/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
t0=$SECONDS
echo "build.sh: building sigs.k8s.io/kind $version into $out" >&2
GOBIN="$tmp" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kind@$version" >&2
mv -f "$tmp/kind" "$out/kind"
echo "$stamp" > "$out/.stamp"
echo "build.sh: done in $((SECONDS - t0))s" >&2
echo "$out"
