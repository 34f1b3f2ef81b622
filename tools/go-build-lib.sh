# Shared steps of the Go build scripts in tools/ (sourced by each build.sh, not run): the Go environment, a lock on
# the output folder, the stamp that says whether the outputs are current, and moving finished outputs into place so
# a reader never sees half of them. Each script names its own inputs (the stamp), outputs and build commands.
#
#   source "$here/../go-build-lib.sh"
#   go_env "-mod=mod -buildvcs=false"           # or go_env "" to leave GOFLAGS alone
#   version="$(go_mod_version example.com/module)"
#   out=...; go_build_lock "$out"
#   stamp="$( { go_build_inputs; cat go.mod go.sum main.go; } | go_build_hash)"
#   if go_build_current "$out" "$stamp" "${FORCE:-0}" bin; then echo "$out/bin"; exit 0; fi
#   go_build_tmp "$out"; go build -o "$tmp/bin" . >&2; go_build_commit "$out" "$stamp" bin

# go_env GOFLAGS: never download another toolchain, no cgo, the given GOFLAGS (none when empty); exits 2 without go.
go_env() {
  export GOTOOLCHAIN=local
  export CGO_ENABLED="${CGO_ENABLED:-0}"
  if [[ -n "$1" ]]; then export GOFLAGS="$1"; fi
  command -v go >/dev/null || { echo "build.sh: go not found on PATH (Go >= 1.26 is needed)" >&2; exit 2; }
}

# go_mod_version MODULE: the version ./go.mod pins for MODULE; exits 2 when it pins none.
go_mod_version() {
  local version
  version="$(awk -v m="$1" '$1 == m && $2 ~ /^v/ { print $2; exit }' go.mod)"
  [[ -n "$version" ]] || { echo "build.sh: cannot read the $1 version from go.mod" >&2; exit 2; }
  echo "$version"
}

# go_build_lock OUT: creates OUT and holds its lock until the script exits, so concurrent callers (several test
# files) wait for one build instead of racing on the folder.
go_build_lock() {
  mkdir -p "$1"
  if command -v flock >/dev/null; then
    exec 9>"$1/.lock"
    flock 9
  fi
}

# go_build_inputs: what every stamp holds besides the script's own inputs: the Go version and target, the calling
# script (found in the folder the caller's `here` names) and this file.
go_build_inputs() {
  go version
  go env GOOS GOARCH CGO_ENABLED
  cat "${here:?}/$(basename "$0")" "${BASH_SOURCE[0]}"
}

# go_build_hash: the stamp of what was read on stdin.
go_build_hash() {
  sha256sum | cut -d' ' -f1
}

# go_build_current OUT STAMP FORCE OUTPUT...: true when FORCE is not 1, OUT/.stamp holds STAMP and every OUTPUT is in OUT.
go_build_current() {
  local out=$1 stamp=$2 force=$3 output
  shift 3
  [[ "$force" != 1 && -f "$out/.stamp" && "$(cat "$out/.stamp")" == "$stamp" ]] || return 1
  for output in "$@"; do [[ -e "$out/$output" ]] || return 1; done
}

# go_build_tmp OUT: sets tmp to a fresh folder inside OUT for the outputs being built, removed when the script exits.
go_build_tmp() {
  tmp="$(mktemp -d "$1/.build.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
}

# go_build_commit OUT STAMP OUTPUT...: moves each finished output from $tmp into OUT, then writes the stamp, last.
go_build_commit() {
  local out=$1 stamp=$2 output
  shift 2
  for output in "$@"; do
    rm -rf "${out:?}/$output"
    mv -f "$tmp/$output" "$out/$output"
  done
  echo "$stamp" >"$out/.stamp"
}
