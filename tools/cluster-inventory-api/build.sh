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
source "$here/../go-build-lib.sh"
cd "$here"

go_env "-mod=mod -buildvcs=false"
module=sigs.k8s.io/cluster-inventory-api
version="$(go_mod_version "$module")"
out="${MCR_CLUSTER_INVENTORY_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/cluster-inventory-api/$version}"
go_build_lock "$out"
stamp="$( { go_build_inputs; cat go.mod go.sum tools.go access-check/*.go; } | go_build_hash)"
outputs=(crds secretreader secretreader-provider-config.json access-check)
if go_build_current "$out" "$stamp" "${MCR_CLUSTER_INVENTORY_FORCE:-0}" "${outputs[@]}"; then
  echo "build.sh: $out is up to date ($module $version)" >&2
  echo "$out"
  exit 0
fi

go_build_tmp "$out"
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
go_build_commit "$out" "$stamp" "${outputs[@]}"
echo "build.sh: done in $((SECONDS - t0))s" >&2
echo "$out"
