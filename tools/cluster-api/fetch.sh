#!/usr/bin/env bash
# Fetches the Cluster API CRDs (core/config/crd/bases of the Go module sigs.k8s.io/cluster-api, at the version pinned
# below) through the Go module proxy, for provider-capi's tests, into a folder whose path is the last line of stdout
# (everything else goes to stderr):
#   dir="$(tools/cluster-api/fetch.sh | tail -n1)"   # $dir/crds/cluster.x-k8s.io_clusters.yaml, …
# A no-op when the folder holds this version already. Nothing is compiled; Go is used only to download and verify
# the module (its checksum is checked against the Go checksum database).
# Environment: MCR_CLUSTER_API_DIR overrides the output folder.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../go-build-lib.sh"
module=sigs.k8s.io/cluster-api
version=v1.14.2

go_env "-mod=mod"
out="${MCR_CLUSTER_API_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/cluster-api/$version}"
go_build_lock "$out"
stamp="$(go_build_inputs | go_build_hash)"
if go_build_current "$out" "$stamp" 0 crds; then
  echo "fetch.sh: $out holds $module $version" >&2
  echo "$out"
  exit 0
fi

src="$(cd "$out" && go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
# v1.14 moved the core CRDs from config/crd/bases to core/config/crd/bases.
bases=""
for candidate in core/config/crd/bases config/crd/bases; do
  [[ -d "$src/$candidate" ]] && { bases="$src/$candidate"; break; }
done
[[ -n "$bases" ]] || { echo "fetch.sh: $module $version has no CRD folder (module dir: ${src:-none})" >&2; exit 1; }
go_build_tmp "$out"
mkdir -p "$tmp/crds"
cp "$bases"/*.yaml "$tmp/crds/"
chmod u+w "$tmp"/crds/*.yaml
go_build_commit "$out" "$stamp" crds
echo "fetch.sh: $module $version CRDs in $out/crds" >&2
echo "$out"
