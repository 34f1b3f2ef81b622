#!/usr/bin/env bash
# Package-quality gate (issues 12, 23), for CI: exits non-zero if any package could not be released or would not
# work from its tarball. Steps 1-2 take about 2-3 minutes on 2 cores, step 3 about as long; the npm cache (or the
# registry) supplies third-party packages.
#  1. `nx release` dry run: independent versions from Conventional Commits, dependents' ranges updated; it must
#     leave every file and tag as it was.
#  2. The pack test (src/pack.test.ts): builds what is stale, packs every package once, checks each tarball with our
#     checker, publint --strict and arethetypeswrong --profile esm-only, installs the tarballs alone into empty
#     projects (each provider with core; core + provider-multi + two providers), imports them, type-checks consumer
#     files and the README examples against the packed declarations, runs the examples against in-memory API
#     servers, and proves that a broken `files` or `exports` fails all of that.
#  3. The release test (src/release/release.test.ts): `nx release` for real in a throwaway clone against a local
#     Verdaccio on 127.0.0.1 (one package versioned, changelogged, tagged and published while the others keep their
#     versions), then core and that provider installed from it run the provider's README example.
# Arguments: the names of the steps to run (default: all), e.g. `check.sh pack-test` on a second Node.
set -euo pipefail
cd "$(dirname "$0")/../.."
export NX_DAEMON=false NX_NO_CLOUD=true

# Every step runs even after one failed, so one CI run reports every problem; the exit status says if any failed.
failed=()
only=("$@")
for name in "${only[@]}"; do
  [[ "$name" =~ ^(release-dry-run|pack-test|release)$ ]] || { echo "check.sh: no step '$name' (release-dry-run, pack-test, release)" >&2; exit 2; }
done
step() {
  local name=$1; shift; local t0=$SECONDS
  if (( ${#only[@]} > 0 )) && [[ " ${only[*]} " != *" $name "* ]]; then return 0; fi
  echo "::: pack-check $name"
  if "$@"; then echo "::: pack-check $name passed in $((SECONDS - t0))s"
  else echo "::: pack-check $name FAILED after $((SECONDS - t0))s" >&2; failed+=("$name"); fi
}

# What `nx release` could write: manifests, changelogs, the lockfile, tags. (Not the index: other work in a shared
# tree stages files at any time; nx.json says no commit, no tag.)
release_state() {
  {
    cat packages/*/package.json package-lock.json 2>/dev/null
    cat packages/*/CHANGELOG.md CHANGELOG.md 2>/dev/null || true
    git tag --list
  } | sha256sum
}

release_dry_run() {
  local before after
  before=$(release_state)
  # --first-release: until the first publish there are no `<package>@<version>` tags, so the current versions come
  # from the manifests. Harmless once tags exist. (`|| return`: set -e is off inside `if`, where step runs this.)
  npx nx release --dry-run --skip-publish --first-release || return 1
  after=$(release_state)
  if [[ "$before" != "$after" ]]; then
    echo "nx release --dry-run changed manifests, changelogs, the lockfile or tags" >&2
    return 1
  fi
}

step release-dry-run release_dry_run
step pack-test npx vitest run --config tools/pack-test/vitest.pack.config.ts src/pack.test.ts
step release npx vitest run --config tools/pack-test/vitest.pack.config.ts src/release/release.test.ts

if (( ${#failed[@]} > 0 )); then
  echo "pack-check failed: ${failed[*]}" >&2
  exit 1
fi
echo "pack-check passed on Node $(node --version)"
