#!/usr/bin/env bash
# Installs node_modules from the lockfile when absent or older than the lockfile.
# `npm install`, not `npm ci`: the registry reachable here has no macOS or Windows builds of
# packages such as @swc/core, so the lockfile cannot list them and npm 11's `npm ci` refuses
# it as out of sync. `npm install` installs the locked versions and leaves the lock as it is.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[deps] installing npm dependencies from package-lock.json" >&2
  npm install --no-audit --no-fund --loglevel=error
else
  echo "[deps] npm dependencies up to date" >&2
fi
