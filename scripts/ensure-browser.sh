#!/usr/bin/env bash
# The browser the web console's tests drive: Debian's chromium package, driven by
# playwright-core (which downloads nothing). Installed once with apt-get; skipped when present.
set -euo pipefail
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
echo "[ensure-browser] $CHROMIUM is missing: installing Debian's chromium package" >&2
if [ "$(id -u)" = 0 ]; then
  apt-get install -y chromium >&2 || { apt-get update >&2 && apt-get install -y chromium >&2; }
else
  sudo apt-get install -y chromium >&2 || { sudo apt-get update >&2 && sudo apt-get install -y chromium >&2; }
fi
