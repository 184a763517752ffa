#!/usr/bin/env bash
# Builds what `npm run start:cluster` needs beyond scripts/setup-tools.sh, into the same .tools/
# (git-ignored), stamped like the other tools so a second run takes a second:
#   temporal-server     Temporal's server (frontend, history, matching, worker services), from
#                       go.temporal.io/server at the release docker-compose.yml names
#   temporal-sql-tool   Temporal's schema tool for SQL stores, from the same module and release
# (both pinned in scripts/tools-go/go.mod, with the CLI: `setup-tools.sh --with-cluster` builds the
# three together on a machine that has none of them)
# and installs PostgreSQL from Debian's packages when it is missing. FerretDB needs no second
# build: setup-tools.sh's binary carries the PostgreSQL handler (docs/deploy.md).
# Prints PG_BIN_DIR=<dir> on its last line for scripts/start-cluster.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${TOOLS_DIR:-$ROOT/.tools}"
BIN="$TOOLS/bin"
STAMPS="$TOOLS/stamps"

# shellcheck source=tools-go/build.sh
source "$ROOT/scripts/tools-go/build.sh"
# Keep in step with docker-compose.yml's temporalio/auto-setup tag (test/unit/platform/compose.test.ts checks).
TEMPORAL_SERVER_VERSION="$(go_tool_version temporal-server)"
# Debian 12's PostgreSQL; docker-compose.yml's postgres image has the same major version.
POSTGRES_MAJOR="15"

export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
mkdir -p "$BIN" "$STAMPS"

say() { printf '[cluster-tools] %s\n' "$*" >&2; }
fresh() { [ -x "$BIN/$1" ] && [ "$(cat "$STAMPS/$1" 2>/dev/null)" = "$2" ]; }
timed() { local start=$SECONDS; "$@"; say "done in $((SECONDS - start))s"; }

build_temporal_server() {
  command -v go >/dev/null 2>&1 || { say "missing 'go': the Go toolchain builds the Temporal server"; exit 1; }
  say "building Temporal server $TEMPORAL_SERVER_VERSION and temporal-sql-tool from scripts/tools-go (first time takes several minutes; minutes less after the CLI's build)"
  go_tools_build "$BIN" "$STAMPS" temporal-server temporal-sql-tool
}

pg_bin_dir() {
  local dir="/usr/lib/postgresql/$POSTGRES_MAJOR/bin"
  [ -x "$dir/postgres" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_isready" ] && printf '%s' "$dir"
}

install_postgres() {
  say "installing PostgreSQL $POSTGRES_MAJOR from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  # Only the server's programs: the Debian package's own cluster is not created or started
  # (policy-rc.d refuses service starts for the install), the launcher runs its own.
  local policy=/usr/sbin/policy-rc.d created=0
  if [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created=1; fi
  apt-get install -y -qq --no-install-recommends "postgresql-$POSTGRES_MAJOR" >/dev/null
  [ "$created" = 1 ] && rm -f "$policy"
  return 0
}

total_start=$SECONDS
fresh temporal-server "$TEMPORAL_SERVER_VERSION" && fresh temporal-sql-tool "$TEMPORAL_SERVER_VERSION" || timed build_temporal_server
pg_bin_dir >/dev/null || timed install_postgres
dir="$(pg_bin_dir)" || { say "PostgreSQL $POSTGRES_MAJOR's programs are still missing after the install"; exit 1; }
say "cluster tools ready ($((SECONDS - total_start))s)"
printf 'PG_BIN_DIR=%s\n' "$dir"
