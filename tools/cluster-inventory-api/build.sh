#!/usr/bin/env bash
# Fetches sigs.k8s.io/cluster-inventory-api (the version pinned in go.mod) through the Go module proxy and prepares
# what provider-cluster-inventory-api's tests need from it, in one folder whose path is the last line of stdout
# (everything else goes to stderr):
#   dir="$(tools/cluster-inventory-api/build.sh | tail -n1)"
#   $dir/crds/         the module's CRDs (config/crd/bases: ClusterProfile, PlacementDecision), as published
#   $dir/secretreader  the module's real `secretreader` credential plugin (plugins/secretreader/cmd/plugin)
#   $dir/secretreader-provider-config.json  the access provider file its example controller ships
#   $dir/access-check  access-check/ built on the module's pkg/access, the code upstream's provider reaches members
#                      through: the access cross-check runs it beside the TypeScript provider
# A no-op when the folder was built from the same inputs; Go's build and module caches make a rebuild cheap (a cold
# build cache takes a minute or two: the plugin compiles client-go).
# Environment: MCR_CLUSTER_INVENTORY_DIR overrides the output folder; MCR_CLUSTER_INVENTORY_FORCE=1 rebuilds anyway.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

export GOTOOLCHAIN=local
export GOFLAGS="-mod=mod -buildvcs=false"
export CGO_ENABLED="${CGO_ENABLED:-0}"

command -v go >/dev/null || { echo "build.sh: go not found on PATH (Go >= 1.26 is needed)" >&2; exit 2; }

module=sigs.k8s.io/cluster-inventory-api
version="$(awk -v m="$module" '$1 == m && $2 ~ /^v/ { print $2; exit }' go.mod)"
[[ -n "$version" ]] || { echo "build.sh: cannot read the $module version from go.mod" >&2; exit 2; }

out="${MCR_CLUSTER_INVENTORY_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/cluster-inventory-api/$version}"
mkdir -p "$out"

stamp="$( { go version; go env GOOS GOARCH CGO_ENABLED; cat go.mod go.sum build.sh tools.go access-check/*.go; } | sha256sum | cut -d' ' -f1)"
up_to_date() {
  [[ -x "$out/secretreader" && -x "$out/access-check" && -d "$out/crds" && -f "$out/secretreader-provider-config.json" && -f "$out/.stamp" && "$(cat "$out/.stamp")" == "$stamp" ]]
}

# Concurrent callers (several test files) wait for one build instead of racing on the folder.
if command -v flock >/dev/null; then
  exec 9>"$out/.lock"
  flock 9
fi

if [[ "${MCR_CLUSTER_INVENTORY_FORCE:-0}" != 1 ]] && up_to_date; then
  echo "build.sh: $out is up to date ($module $version)" >&2
  echo "$out"
  exit 0
fi

tmp="$(mktemp -d "$out/.build.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
t0=$SECONDS
echo "build.sh: preparing $module $version in $out" >&2

src="$(go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -d "$src/config/crd/bases" ]] || { echo "build.sh: $module $version has no config/crd/bases (module dir: ${src:-none})" >&2; exit 1; }
mkdir -p "$tmp/crds"
cp "$src"/config/crd/bases/*.yaml "$tmp/crds/"
cp "$src/examples/controller-example/plugins/secretreader/provider-config.json" "$tmp/secretreader-provider-config.json"
chmod u+w "$tmp"/crds/*.yaml "$tmp/secretreader-provider-config.json"
go build -trimpath -ldflags "-s -w" -o "$tmp/secretreader" "$module/plugins/secretreader/cmd/plugin" >&2
go build -trimpath -ldflags "-s -w" -o "$tmp/access-check" ./access-check >&2

# Moved into place so a reader never sees half a folder; the stamp goes last.
rm -rf "$out/crds" "$out/secretreader"
mv "$tmp/crds" "$out/crds"
mv -f "$tmp/secretreader-provider-config.json" "$out/"
mv -f "$tmp/secretreader" "$out/secretreader"
mv -f "$tmp/access-check" "$out/access-check"
echo "$stamp" > "$out/.stamp"
echo "build.sh: done in $((SECONDS - t0))s" >&2
echo "$out"
