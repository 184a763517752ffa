#!/usr/bin/env bash
# `npm run console -- …`: compiles first when any source is newer than the compiled CLI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cli=dist/src/main/console.js
if [ ! -f "$cli" ] || [ -n "$(find api workflows activities src -name '*.ts' -newer "$cli" -print -quit)" ]; then
  npx --no-install tsc -p tsconfig.build.json >&2
fi
exec node "$cli" "$@"
