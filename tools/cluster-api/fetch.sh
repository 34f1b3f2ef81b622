#!/usr/bin/env bash
# Fetches the Cluster API CRDs (config/crd/bases of the Go module sigs.k8s.io/cluster-api, at the version pinned
# below) through the Go module proxy, for provider-capi's tests, into a folder whose path is the last line of stdout
# (everything else goes to stderr):
#   dir="$(tools/cluster-api/fetch.sh | tail -n1)"   # $dir/crds/cluster.x-k8s.io_clusters.yaml, …
# A no-op when the folder holds this version already. Nothing is compiled; Go is used only to download and verify
# the module (its checksum is checked against the Go checksum database).
# Environment: MCR_CLUSTER_API_DIR overrides the output folder.
set -euo pipefail

module=sigs.k8s.io/cluster-api
version=v1.13.1

export GOTOOLCHAIN=local GOFLAGS=-mod=mod
command -v go >/dev/null || { echo "fetch.sh: go not found on PATH (the Go module proxy serves $module)" >&2; exit 2; }

out="${MCR_CLUSTER_API_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/cluster-api/$version}"
mkdir -p "$out"
if command -v flock >/dev/null; then
  exec 9>"$out/.lock"
  flock 9
fi
if [[ -f "$out/.done" ]]; then
  echo "fetch.sh: $out holds $module $version" >&2
  echo "$out"
  exit 0
fi

src="$(cd "$out" && go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -d "$src/config/crd/bases" ]] || { echo "fetch.sh: $module $version has no config/crd/bases (module dir: ${src:-none})" >&2; exit 1; }
tmp="$(mktemp -d "$out/.fetch.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
cp "$src"/config/crd/bases/*.yaml "$tmp/"
chmod u+w "$tmp"/*.yaml
rm -rf "$out/crds"
mv "$tmp" "$out/crds"
touch "$out/.done"
echo "fetch.sh: $module $version CRDs in $out/crds" >&2
echo "$out"
