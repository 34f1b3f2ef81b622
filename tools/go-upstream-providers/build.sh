#!/usr/bin/env bash
# Builds go-upstream-providers (upstream Go providers with a uniform controller: the kcp providers of
# github.com/kcp-dev/multicluster-provider, the kubeconfig Secret, file, namespace and multi providers of
# sigs.k8s.io/multicluster-runtime, as pinned in go.mod) and prints the binary's path on the last line of stdout
# (everything else goes to stderr):
#   bin="$(tools/go-upstream-providers/build.sh | tail -n1)"
# `build.sh kind` builds go-upstream-kind-provider from the kind/ module instead: upstream's kind provider, which the
# proxy serves only as v0.23.1, built on multicluster-runtime v0.23.1 (an API the other providers' v0.24.1 replaced).
# A no-op when the binary was built from the same inputs; otherwise Go's build and module caches make a rebuild
# cheap (a cold cache takes minutes: it compiles client-go, controller-runtime and the kcp SDK).
# Environment: MCR_GO_UPSTREAM_PROVIDERS_DIR overrides the output folder; MCR_GO_UPSTREAM_PROVIDERS_FORCE=1 rebuilds
# anyway.
#
# About the `client` sub-module: upstream's go.mod requires github.com/kcp-dev/multicluster-provider/client at
# v0.0.0-00010101000000-000000000000 with `replace … => ./client`. Module zips never contain nested modules, so that
# folder is not in the downloaded module, and the proxy does not serve client/v0.8.0. None of the packages built
# here imports it, and with module graph pruning (go ≥ 1.17) Go never reads that requirement's go.mod, so no replace
# is needed; if a future version needs one, point it at a folder resolved with `go mod download -json`, never at
# committed code.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../go-build-lib.sh"
case "${1:-}" in
  "") name=go-upstream-providers; cd "$here" ;;
  kind) name=go-upstream-kind-provider; cd "$here/kind" ;;
  *) echo "build.sh: unknown module ${1}; give none, or kind" >&2; exit 2 ;;
esac

# Never depend on a vendor folder; no VCS stamping. The kcp-dev modules and multicluster-runtime's provider
# sub-modules (providers/file) are not in the checksum database, so they are checked against go.sum only.
go_env "-mod=mod -buildvcs=false"
export GONOSUMDB="${GONOSUMDB:+$GONOSUMDB,}github.com/kcp-dev,sigs.k8s.io/multicluster-runtime/providers"
version="$(go_mod_version sigs.k8s.io/multicluster-runtime)"
out="${MCR_GO_UPSTREAM_PROVIDERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/$name/$version}"
go_build_lock "$out"
# Every input of the build (the kind/ module is not one of the main module's).
stamp="$( { go_build_inputs; cat go.mod go.sum; find . -path ./kind -prune -o -name '*.go' -type f -print | LC_ALL=C sort | xargs cat; } | go_build_hash)"
if go_build_current "$out" "$stamp" "${MCR_GO_UPSTREAM_PROVIDERS_FORCE:-0}" "$name"; then
  echo "build.sh: $out/$name is up to date (multicluster-runtime $version)" >&2
  echo "$out/$name"
  exit 0
fi

go_build_tmp "$out"
t0=$SECONDS
echo "build.sh: building $name on multicluster-runtime $version into $out" >&2
go build -trimpath -ldflags "-s -w" -o "$tmp/$name" . >&2
go_build_commit "$out" "$stamp" "$name"
echo "build.sh: built in $((SECONDS - t0))s" >&2
echo "$out/$name"
