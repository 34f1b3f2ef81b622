#!/usr/bin/env bash
# `npm run docs`: builds the API reference of every published package into docs/api (TypeDoc, one site, each
# package's README as its entry page; typedoc.json at the root) and fails on a broken link, on a type a public
# signature uses but no entry point exports, on an exported symbol (or member) without a doc comment, or on any other
# TypeDoc warning.
# Expects the packages built (npm run build): TypeDoc resolves workspace packages through their declarations, and a
# member documented in another package (an interface a class implements) counts only once that package is built.
set -euo pipefail
cd "$(dirname "$0")/../.."

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
npx typedoc > "$log" 2>&1 || status=$?
sed -i 's/\x1b\[[0-9;]*m//g' "$log"

undocumented="$( (grep 'does not have any documentation' "$log" || true) \
  | sed -E 's/^\[warning\] (.*) \([A-Za-z]+\), defined in @multicluster-runtime\/([a-z-]+)\/.*$/\2: \1/' | LC_ALL=C sort -u)"
others="$( (grep -E '^\[(warning|error)\]' "$log" || true) | grep -v 'does not have any documentation' | grep -v '^\[warning\] Found [0-9]* errors' || true)"

failed=0
if [[ $status -ne 0 || -n "$others" ]]; then
  echo "docs: TypeDoc reported problems (exit $status):" >&2
  if [[ -n "$others" ]]; then echo "$others" >&2; else tail -20 "$log" >&2; fi
  failed=1
fi
if [[ -n "$undocumented" ]]; then
  echo "docs: exported without a doc comment (document them):" >&2
  echo "$undocumented" | sed 's/^/  /' >&2
  failed=1
fi
if [[ $failed -eq 0 ]]; then echo "docs: docs/api built; every exported symbol has a doc comment"; fi
exit $failed
