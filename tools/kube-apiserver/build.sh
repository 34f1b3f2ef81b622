#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the upstream Go modules pinned in go.mod into one assets folder, usable as
# KUBEBUILDER_ASSETS. Prints that folder on the last line of stdout (everything else goes to stderr), so:
#   export KUBEBUILDER_ASSETS="$(tools/kube-apiserver/build.sh | tail -n1)"
# A no-op when the folder already holds binaries built from the same inputs; otherwise Go's build and module
# caches make a rebuild cheap. Works on a fresh machine with Go and the Go module proxy.
# Environment: MCR_ASSETS_DIR overrides the output folder; MCR_ASSETS_FORCE=1 rebuilds even if up to date.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

# Never silently download a different toolchain; never depend on a vendor folder; no VCS stamping (the
# binaries' identity is the pinned module versions, not this repository's commit).
export GOTOOLCHAIN=local
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED="${CGO_ENABLED:-0}"

command -v go >/dev/null || { echo "build.sh: go not found on PATH (Go >= 1.26 is needed)" >&2; exit 2; }

k8s_version="$(awk '$1 == "k8s.io/kubernetes" && $2 ~ /^v/ { print $2; exit }' go.mod)"
[[ "$k8s_version" =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+$ ]] || { echo "build.sh: cannot read k8s.io/kubernetes version from go.mod" >&2; exit 2; }
major="${BASH_REMATCH[1]}" minor="${BASH_REMATCH[2]}"

out="${MCR_ASSETS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/assets/$k8s_version}"
mkdir -p "$out"

# The stamp names every input of the build; equal stamp + present binaries = nothing to do.
stamp="$( { go version; go env GOOS GOARCH CGO_ENABLED; cat go.mod go.sum build.sh; find cmd -name '*.go' -type f | LC_ALL=C sort | xargs cat; } | sha256sum | cut -d' ' -f1)"

up_to_date() {
  [[ -x "$out/kube-apiserver" && -x "$out/etcd" && -f "$out/.stamp" && "$(cat "$out/.stamp")" == "$stamp" ]]
}

# Concurrent callers (parallel CI jobs, several test runs) wait for one build instead of racing on the folder.
# Without flock (macOS) the renames below still keep readers from seeing half-written binaries.
if command -v flock >/dev/null; then
  exec 9>"$out/.lock"
  flock 9
fi

if [[ "${MCR_ASSETS_FORCE:-0}" != 1 ]] && up_to_date; then
  echo "build.sh: $out is up to date ($k8s_version)" >&2
  echo "$out"
  exit 0
fi

pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"

tmp="$(mktemp -d "$out/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

t0=$SECONDS
echo "build.sh: building kube-apiserver $k8s_version and etcd into $out" >&2
go build -trimpath -ldflags "$ldflags" -o "$tmp/" ./cmd/kube-apiserver ./cmd/etcd >&2

"$tmp/kube-apiserver" --version >&2
"$tmp/etcd" --version >&2

# Rename into place so a reader never sees a half-written binary; the stamp goes last.
mv -f "$tmp/kube-apiserver" "$out/kube-apiserver"
mv -f "$tmp/etcd" "$out/etcd"
echo "$stamp" > "$out/.stamp"
echo "build.sh: built in $((SECONDS - t0))s" >&2
echo "$out"
