#!/usr/bin/env bash
# Builds the web console (api/console/web) into dist/console-web, which the API serves at
# /console/: type-checks it with its own tsconfig (DOM, Preact JSX), then bundles it with
# Vite. Everything comes from node_modules; the page loads nothing from elsewhere.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
echo "[build-web] type-checking and bundling the web console into dist/console-web" >&2
npx --no-install tsc -p api/console/web/tsconfig.json
npx --no-install vite build --config api/console/web/vite.config.mjs
