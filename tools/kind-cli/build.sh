#!/usr/bin/env bash
# Builds the real kind CLI (sigs.k8s.io/kind, the version below) from the Go module proxy, for provider-kind's
# tests, which run it against tools/fake-kind's docker stand-in. The binary's folder is the last line of stdout
# (everything else goes to stderr):
#   kind="$(tools/kind-cli/build.sh | tail -n1)/kind"
# A no-op when the binary was built from the same inputs; Go's build and module caches make a rebuild take seconds.
# Environment: MCR_KIND_CLI_DIR overrides the output folder; MCR_KIND_CLI_FORCE=1 rebuilds anyway.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../go-build-lib.sh"
version=v0.33.0

go_env ""
out="${MCR_KIND_CLI_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/kind-cli/$version}"
go_build_lock "$out"
stamp="$(go_build_inputs | go_build_hash)"
if go_build_current "$out" "$stamp" "${MCR_KIND_CLI_FORCE:-0}" kind; then
  echo "build.sh: $out/kind is up to date (sigs.k8s.io/kind $version)" >&2
  echo "$out"
  exit 0
fi

go_build_tmp "$out"
t0=$SECONDS
echo "build.sh: building sigs.k8s.io/kind $version into $out" >&2
GOBIN="$tmp" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kind@$version" >&2
go_build_commit "$out" "$stamp" kind
echo "build.sh: done in $((SECONDS - t0))s" >&2
echo "$out"
