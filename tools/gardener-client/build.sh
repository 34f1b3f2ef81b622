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
cd "$here"

# Never silently download a different toolchain; never depend on a vendor folder; no VCS stamping.
export GOTOOLCHAIN=local
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED="${CGO_ENABLED:-0}"

command -v go >/dev/null || { echo "build.sh: go not found on PATH (Go >= 1.26 is needed)" >&2; exit 2; }

version="$(awk '$1 == "github.com/gardener/gardener" && $2 ~ /^v/ { print $2; exit }' go.mod)"
[[ -n "$version" ]] || { echo "build.sh: cannot read the github.com/gardener/gardener version from go.mod" >&2; exit 2; }

out="${MCR_GARDENER_CLIENT_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/gardener-client/$version}"
mkdir -p "$out"
bin="$out/gardener-client"

# The stamp names every input of the build; equal stamp + present binary = nothing to do.
stamp="$( { go version; go env GOOS GOARCH CGO_ENABLED; cat go.mod go.sum build.sh main.go; } | sha256sum | cut -d' ' -f1)"
up_to_date() {
  [[ -x "$bin" && -f "$out/.stamp" && "$(cat "$out/.stamp")" == "$stamp" ]]
}

# Concurrent callers (several test runs) wait for one build instead of racing on the folder.
if command -v flock >/dev/null; then
  exec 9>"$out/.lock"
  flock 9
fi

if [[ "${MCR_GARDENER_CLIENT_FORCE:-0}" != 1 ]] && up_to_date; then
  echo "build.sh: $bin is up to date (gardener $version)" >&2
  echo "$bin"
  exit 0
fi

tmp="$(mktemp -d "$out/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
t0=$SECONDS
echo "build.sh: building gardener-client on gardener $version into $out" >&2
go build -trimpath -ldflags "-s -w" -o "$tmp/gardener-client" . >&2
# Renamed into place so a reader never sees a half-written binary; the stamp goes last.
mv -f "$tmp/gardener-client" "$bin"
echo "$stamp" > "$out/.stamp"
echo "build.sh: built in $((SECONDS - t0))s" >&2
echo "$bin"
