#!/usr/bin/env bash
# Installs node_modules from the lockfile when absent or older than the lockfile.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "[deps] installing npm dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error
else
  echo "[deps] npm dependencies up to date" >&2
fi
