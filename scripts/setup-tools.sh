#!/usr/bin/env bash
# Builds the pinned local servers into .tools/ (git-ignored). Idempotent: a tool whose
# stamp matches its pinned version is left alone, so later runs take a second.
#   temporal              Temporal CLI dev server (with the Web UI), from its Go module, pinned
#                         in scripts/tools-go/go.mod
#   ferretdb              FerretDB 1.x, MongoDB wire protocol on SQLite, from its module source
#                         with scripts/patches/ferretdb-*.patch applied
#   temporal-test-server  Temporal's Java time-skipping test server, from Maven Central
# With --with-cluster (`npm test`, `npm run start:cluster`) also the Temporal server and its SQL
# tool that scripts/setup-cluster-tools.sh would build, in the same `go build` as the CLI when
# both are missing: the CLI embeds that server, so their shared packages compile once.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${TOOLS_DIR:-$ROOT/.tools}"
BIN="$TOOLS/bin"
STAMPS="$TOOLS/stamps"

FERRETDB_VERSION="v1.24.2"
TEST_SERVER_VERSION="1.38.0"

# Patches applied to FerretDB's module source before it is built (docs/decisions/platform.md: "FerretDB's
# _id index", "FerretDB without leak tracking", "FerretDB's pool and bulk writes"). Their content
# is part of the stamp, so a changed patch rebuilds FerretDB.
FERRETDB_PATCHES=("$ROOT/scripts/patches/ferretdb-$FERRETDB_VERSION-id-index.patch" "$ROOT/scripts/patches/ferretdb-$FERRETDB_VERSION-resource-tracking.patch" "$ROOT/scripts/patches/ferretdb-$FERRETDB_VERSION-statement-connections.patch" "$ROOT/scripts/patches/ferretdb-$FERRETDB_VERSION-id-range.patch" "$ROOT/scripts/patches/ferretdb-$FERRETDB_VERSION-pg-id-index.patch")

export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
mkdir -p "$BIN" "$STAMPS"

say() { printf '[tools] %s\n' "$*" >&2; }
fresh() { [ -x "$BIN/$1" ] && [ "$(cat "$STAMPS/$1" 2>/dev/null)" = "$2" ]; }
stamp() { printf '%s' "$2" >"$STAMPS/$1"; }
timed() { local start=$SECONDS; "$@"; say "done in $((SECONDS - start))s"; }

require() {
  command -v "$1" >/dev/null 2>&1 || { say "missing '$1': $2"; exit 1; }
}

# shellcheck source=tools-go/build.sh
source "$ROOT/scripts/tools-go/build.sh"

build_go_tools() {
  require go "the Go toolchain builds the Temporal binaries"
  local tool names=""
  for tool in "$@"; do names+=" $tool $(go_tool_version "$tool")"; done
  say "building${names} in one Go build from scripts/tools-go (first time takes several minutes)"
  go_tools_build "$BIN" "$STAMPS" "$@"
}

ferretdb_stamp() {
  printf '%s+patches:%s' "$FERRETDB_VERSION" "$(cat "${FERRETDB_PATCHES[@]}" | sha256sum | cut -c1-16)"
}

# A plain `go install` of FerretDB panics at start: build/version/version.txt is generated
# by its release tooling and absent from the module, so build from a copy with it written.
build_ferretdb() {
  require go "the Go toolchain builds FerretDB"
  require patch "patch applies the repository's fixes to FerretDB's source"
  say "building FerretDB $FERRETDB_VERSION from module source"
  local dir src work
  dir="$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [ -d "$dir" ] || { say "go mod download gave no source directory for FerretDB"; exit 1; }
  work="$TOOLS/src/ferretdb"
  rm -rf "$work" && mkdir -p "$work"
  cp -R "$dir/." "$work/" && chmod -R u+w "$work"
  printf '%s\n' "$FERRETDB_VERSION" >"$work/build/version/version.txt"
  printf 'sqlite-only\n' >"$work/build/version/package.txt"
  local p
  for p in "${FERRETDB_PATCHES[@]}"; do
    say "applying $(basename "$p")"
    patch -s -p1 -d "$work" --forward --no-backup-if-mismatch <"$p"
  done
  (cd "$work" && go build -o "$BIN/ferretdb" ./cmd/ferretdb)
  rm -rf "$work"
  stamp ferretdb "$(ferretdb_stamp)"
}

build_test_server() {
  require java "a JDK runs Temporal's test server"
  require mvn "Maven fetches Temporal's test server from Maven Central"
  say "fetching temporal-test-server $TEST_SERVER_VERSION and its dependencies from Maven Central"
  local home="$TOOLS/temporal-test-server"
  rm -rf "$home" && mkdir -p "$home/lib"
  cat >"$home/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.tools</groupId><artifactId>test-server-deps</artifactId><version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId>
      <version>$TEST_SERVER_VERSION</version>
    </dependency>
  </dependencies>
</project>
POM
  mvn -q -B -Dstyle.color=never -f "$home/pom.xml" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$home/lib"
  # The SDK passes the port as the only argument, kills the child on teardown (so the
  # wrapper must exec java) and allows 5 s to listen: keep the JVM start cheap.
  cat >"$BIN/temporal-test-server" <<WRAP
#!/usr/bin/env bash
HOME_DIR="\$(cd "\$(dirname "\$0")/../temporal-test-server" && pwd)"
CDS=()
[ -f "\$HOME_DIR/classes.jsa" ] && CDS=(-XX:SharedArchiveFile="\$HOME_DIR/classes.jsa" -Xshare:auto)
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss1m "\${CDS[@]}" -cp "\$HOME_DIR/lib/*" io.temporal.testserver.TestServer "\$@"
WRAP
  chmod +x "$BIN/temporal-test-server"
  archive_test_server_classes "$home"
  stamp temporal-test-server "$TEST_SERVER_VERSION"
}

# A class-data archive made from one real start roughly halves the JVM's start time.
archive_test_server_classes() {
  local home="$1" port
  port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ArchiveClassesAtExit="$home/classes.jsa" \
    -cp "$home/lib/*" io.temporal.testserver.TestServer "$port" >/dev/null 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.2
  done
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ -f "$home/classes.jsa" ] && say "class-data archive written" || say "no class-data archive (start stays correct, only slower)"
}

with_cluster=0
[ "${1:-}" = --with-cluster ] && with_cluster=1
go_tools=()
fresh temporal "$(go_tool_version temporal)" || go_tools+=(temporal)
if [ "$with_cluster" = 1 ]; then
  fresh temporal-server "$(go_tool_version temporal-server)" || go_tools+=(temporal-server)
  fresh temporal-sql-tool "$(go_tool_version temporal-sql-tool)" || go_tools+=(temporal-sql-tool)
fi

total_start=$SECONDS
[ ${#go_tools[@]} = 0 ] || timed build_go_tools "${go_tools[@]}"
fresh ferretdb "$(ferretdb_stamp)" || timed build_ferretdb
fresh temporal-test-server "$TEST_SERVER_VERSION" || timed build_test_server
say "tools ready in $BIN ($((SECONDS - total_start))s)"
