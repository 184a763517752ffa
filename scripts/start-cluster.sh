#!/usr/bin/env bash
# `npm run start:cluster` (docs/deploy.md): the production shape on this machine. Installs and
# builds what is missing (npm dependencies, the tools, the Temporal server, PostgreSQL), then
# hands over to the cluster launcher (src/main/startCluster.ts), which starts every server and
# prints the API key. Prints how long the builds took and how long the start took.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
began=$SECONDS
bash scripts/ensure-deps.sh
bash scripts/setup-tools.sh --with-cluster
pg="$(bash scripts/setup-cluster-tools.sh | tail -n 1)"
export "${pg?}"
echo "[start:cluster] compiling TypeScript" >&2
npx --no-install tsc -p tsconfig.build.json
bash scripts/build-web.sh
echo "[start:cluster] installs and builds took $((SECONDS - began))s; starting the cluster" >&2
exec node dist/src/main/startCluster.js
