#!/usr/bin/env bash
# `npm run docs`: builds the API reference of every published package into docs/api (TypeDoc, one site, each
# package's README as its entry page; typedoc.json at the root) and fails on a broken link, on a type a public
# signature uses but no entry point exports, or on any other TypeDoc warning. Exported symbols without a doc comment
# are counted against tools/docs/undocumented.txt (one "package: symbol" per line): a new one fails the check, and
# one that got documented must be struck from the list, so the list only shrinks.
# Expects the packages built (npm run build): TypeDoc resolves workspace packages through their declarations, and a
# member documented in another package (an interface a class implements) counts only once that package is built.
# `tools/docs/check.sh --update` rewrites the list from the current state instead of checking it (build first).
set -euo pipefail
cd "$(dirname "$0")/../.."

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
npx typedoc > "$log" 2>&1 || status=$?
sed -i 's/\x1b\[[0-9;]*m//g' "$log"

undocumented="$(grep 'does not have any documentation' "$log" \
  | sed -E 's/^\[warning\] (.*) \([A-Za-z]+\), defined in @multicluster-runtime\/([a-z-]+)\/.*$/\2: \1/' | LC_ALL=C sort -u)"
others="$(grep -E '^\[(warning|error)\]' "$log" | grep -v 'does not have any documentation' | grep -v '^\[warning\] Found [0-9]* errors' || true)"

failed=0
if [[ $status -ne 0 || -n "$others" ]]; then
  echo "docs: TypeDoc reported problems (exit $status):" >&2
  if [[ -n "$others" ]]; then echo "$others" >&2; else tail -20 "$log" >&2; fi
  failed=1
fi
known="tools/docs/undocumented.txt"
if [[ "${1:-}" == "--update" ]]; then
  echo "$undocumented" | sed '/^$/d' > "$known"
  echo "docs: $known rewritten ($(wc -l < "$known") entries)"
  exit $failed
fi
new="$(comm -23 <(echo "$undocumented" | sed '/^$/d') <(LC_ALL=C sort -u "$known"))"
gone="$(comm -13 <(echo "$undocumented" | sed '/^$/d') <(LC_ALL=C sort -u "$known"))"
if [[ -n "$new" ]]; then
  echo "docs: exported without a doc comment (document them):" >&2
  echo "$new" | sed 's/^/  /' >&2
  failed=1
fi
if [[ -n "$gone" ]]; then
  echo "docs: documented now, strike from $known:" >&2
  echo "$gone" | sed 's/^/  /' >&2
  failed=1
fi
count="$(echo "$undocumented" | sed '/^$/d' | wc -l)"
echo "docs: docs/api built; $count exported symbols still without a doc comment (tools/docs/undocumented.txt)"
exit $failed
