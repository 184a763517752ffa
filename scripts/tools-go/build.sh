# Sourced by scripts/setup-tools.sh and scripts/setup-cluster-tools.sh: the Temporal binaries,
# built from this folder's Go module. Its go.mod pins the Temporal CLI and the Temporal server
# (the release the CLI itself requires, so the CLI's own dependency versions are kept: checked
# with `go list -deps` against the CLI's module) and names the three commands as tools; go.sum
# pins everything under them. The CLI embeds the server, so one `go build` of several of these
# compiles the packages they share once (docs/decisions/platform.md, "One Go build").

TOOLS_GO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

declare -A GO_TOOL_PACKAGE=(
  [temporal]=github.com/temporalio/cli/cmd/temporal
  [temporal-server]=go.temporal.io/server/cmd/server
  [temporal-sql-tool]=go.temporal.io/server/cmd/tools/sql
)
declare -A GO_TOOL_MODULE=(
  [temporal]=github.com/temporalio/cli
  [temporal-server]=go.temporal.io/server
  [temporal-sql-tool]=go.temporal.io/server
)

# The release go.mod pins for a tool's module: the tool's stamp.
go_tool_version() {
  sed -n "s|^[[:space:]]*${GO_TOOL_MODULE[$1]} \(v[^[:space:]]*\)\( // indirect\)\{0,1\}$|\1|p" "$TOOLS_GO_DIR/go.mod"
}

# go_tools_build <bin dir> <stamps dir> <tool>...: one `go build` of the named tools into <bin dir>,
# each stamped with its module's release.
go_tools_build() {
  local bin="$1" stamps="$2" out tool
  shift 2
  local packages=()
  for tool in "$@"; do packages+=("${GO_TOOL_PACKAGE[$tool]}"); done
  out="$(mktemp -d "$bin/.go-build.XXXXXX")"
  (cd "$TOOLS_GO_DIR" && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$out/" "${packages[@]}") || { rm -rf "$out"; return 1; }
  for tool in "$@"; do
    mv "$out/$(basename "${GO_TOOL_PACKAGE[$tool]}")" "$bin/$tool"
    printf '%s' "$(go_tool_version "$tool")" >"$stamps/$tool"
  done
  rm -rf "$out"
}
