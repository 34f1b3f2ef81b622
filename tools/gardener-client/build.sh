#!/usr/bin/env bash
# Builds gardener-client (main.go: a garden or seed read with Gardener's own Go API types, github.com/gardener/gardener
# as pinned in go.mod, and the calls the upstream Go gardener provider makes, on the controller-runtime it pins) and
# prints the binary's path on the last line of stdout (everything else goes to stderr):
#   bin="$(tools/gardener-client/build.sh | tail -n1)"
# A no-op when the binary was built from the same inputs; otherwise Go's build and module caches make a rebuild
# cheap (a cold cache takes about a minute: it compiles client-go, controller-runtime and Gardener's API packages).
# The upstream provider itself (github.com/gardener/multicluster-provider) is not served by the Go module proxy.
# Environment: MCR_GARDENER_CLIENT_DIR overrides the output folder; MCR_GARDENER_CLIENT_FORCE=1 rebuilds anyway.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../go-build-lib.sh"
cd "$here"

go_env "-mod=mod -buildvcs=false"
version="$(go_mod_version github.com/gardener/gardener)"
out="${MCR_GARDENER_CLIENT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/gardener-client/$version}"
go_build_lock "$out"
stamp="$( { go_build_inputs; cat go.mod go.sum main.go; } | go_build_hash)"
if go_build_current "$out" "$stamp" "${MCR_GARDENER_CLIENT_FORCE:-0}" gardener-client; then
  echo "build.sh: $out/gardener-client is up to date (gardener $version)" >&2
  echo "$out/gardener-client"
  exit 0
fi

go_build_tmp "$out"
t0=$SECONDS
echo "build.sh: building gardener-client on gardener $version into $out" >&2
go build -trimpath -ldflags "-s -w" -o "$tmp/gardener-client" . >&2
go_build_commit "$out" "$stamp" gardener-client
echo "build.sh: built in $((SECONDS - t0))s" >&2
echo "$out/gardener-client"
