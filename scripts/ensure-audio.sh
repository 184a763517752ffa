#!/usr/bin/env bash
# The speech the media-bridge tests and `npm run bench:voice` play: Debian's espeak-ng speaks
# the text and sox makes it 8 kHz mu-law, as a phone line carries it (test/support/speechAudio.ts).
# Installed once with apt-get; skipped when both are present.
set -euo pipefail
missing=()
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v sox >/dev/null 2>&1 || missing+=(sox)
if [ ${#missing[@]} = 0 ]; then
  exit 0
fi
echo "[ensure-audio] ${missing[*]} missing: installing Debian's packages" >&2
if [ "$(id -u)" = 0 ]; then
  apt-get install -y "${missing[@]}" >&2 || { apt-get update >&2 && apt-get install -y "${missing[@]}" >&2; }
else
  sudo apt-get install -y "${missing[@]}" >&2 || { sudo apt-get update >&2 && sudo apt-get install -y "${missing[@]}" >&2; }
fi
