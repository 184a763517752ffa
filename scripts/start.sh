#!/usr/bin/env bash
# `npm start`: install what is missing, build the tools and the code, then hand over to the
# launcher (src/main/start.ts), which starts every server and prints the API key.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/ensure-deps.sh
bash scripts/setup-tools.sh
echo "[start] compiling TypeScript" >&2
npx --no-install tsc -p tsconfig.build.json
bash scripts/build-web.sh
exec node dist/src/main/start.js
