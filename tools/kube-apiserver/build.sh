#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the upstream Go modules pinned in go.mod into one assets folder, usable as
# KUBEBUILDER_ASSETS. Prints that folder on the last line of stdout (everything else goes to stderr), so:
#   export KUBEBUILDER_ASSETS="$(tools/kube-apiserver/build.sh | tail -n1)"
# A no-op when the folder already holds binaries built from the same inputs; otherwise Go's build and module
# caches make a rebuild cheap. Works on a fresh machine with Go and the Go module proxy.
# Environment: MCR_ASSETS_DIR overrides the output folder; MCR_ASSETS_FORCE=1 rebuilds even if up to date.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../go-build-lib.sh"
cd "$here"

go_env "-mod=mod -buildvcs=false"
k8s_version="$(go_mod_version k8s.io/kubernetes)"
[[ "$k8s_version" =~ ^v([0-9]+)\.([0-9]+)\.[0-9]+$ ]] || { echo "build.sh: k8s.io/kubernetes $k8s_version is not a release version" >&2; exit 2; }
major="${BASH_REMATCH[1]}" minor="${BASH_REMATCH[2]}"

out="${MCR_ASSETS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/assets/$k8s_version}"
go_build_lock "$out"
stamp="$( { go_build_inputs; cat go.mod go.sum; find cmd -name '*.go' -type f | LC_ALL=C sort | xargs cat; } | go_build_hash)"
if go_build_current "$out" "$stamp" "${MCR_ASSETS_FORCE:-0}" kube-apiserver etcd; then
  echo "build.sh: $out is up to date ($k8s_version)" >&2
  echo "$out"
  exit 0
fi

pkg=k8s.io/component-base/version
ldflags="-s -w -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"

go_build_tmp "$out"
t0=$SECONDS
echo "build.sh: building kube-apiserver $k8s_version and etcd into $out" >&2
go build -trimpath -ldflags "$ldflags" -o "$tmp/" ./cmd/kube-apiserver ./cmd/etcd >&2

"$tmp/kube-apiserver" --version >&2
"$tmp/etcd" --version >&2

go_build_commit "$out" "$stamp" kube-apiserver etcd
echo "build.sh: built in $((SECONDS - t0))s" >&2
echo "$out"
