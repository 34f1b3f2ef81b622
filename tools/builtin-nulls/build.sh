#!/usr/bin/env bash
# Builds builtin-nulls (main.go: which fields of the built-in API types Go writes as null when unset, read from the Go
# types at the versions go.mod pins) and prints the binary's path on the last line of stdout (everything else goes
# to stderr):
#   bin="$(tools/builtin-nulls/build.sh | tail -n1)"
# A no-op when the binary was built from the same inputs; otherwise Go's build and module caches make a rebuild
# cheap. packages/envtest/src/api/builtin-nulls.test.ts runs it and compares its answer with builtin-nulls.ts.
# Environment: MCR_BUILTIN_NULLS_DIR overrides the output folder; MCR_BUILTIN_NULLS_FORCE=1 rebuilds anyway.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../go-build-lib.sh"
cd "$here"

go_env "-mod=mod -buildvcs=false"
version="$(go_mod_version k8s.io/client-go)"
out="${MCR_BUILTIN_NULLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/builtin-nulls/$version}"
go_build_lock "$out"
stamp="$( { go_build_inputs; cat go.mod go.sum main.go; } | go_build_hash)"
if go_build_current "$out" "$stamp" "${MCR_BUILTIN_NULLS_FORCE:-0}" builtin-nulls; then
  echo "build.sh: $out/builtin-nulls is up to date (client-go $version)" >&2
  echo "$out/builtin-nulls"
  exit 0
fi

go_build_tmp "$out"
t0=$SECONDS
echo "build.sh: building builtin-nulls on client-go $version into $out" >&2
go build -trimpath -ldflags "-s -w" -o "$tmp/builtin-nulls" . >&2
go_build_commit "$out" "$stamp" builtin-nulls
echo "build.sh: built in $((SECONDS - t0))s" >&2
echo "$out/builtin-nulls"
