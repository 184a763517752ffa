#!/usr/bin/env bash
# `npm run fuzz`: starts the whole system with the launcher (dist/src/main/start.js) on free
# ports with a throwaway data folder, creates API keys through the console API, and runs
# schemathesis (installed from PyPI into the git-ignored .fuzz/venv) against
# /api/v1/openapi.json, then against /console/v1/openapi.json with the console token and
# `workspace_id` pinned to the demo workspace. Each public request carries the next key in
# turn (scripts/fuzz_hooks.py), so the 120-per-minute limit of one key does not hide
# behaviour. Then the media process's streams get malformed frames (scripts/fuzz-media.cjs).
# Exits non-zero on any failed check, or if any process died during the run.
#
#   FUZZ_MAX_EXAMPLES  test cases per operation and phase (default 150, about 4,000 requests; `npm test` uses 5)
#   FUZZ_KEYS          API keys to rotate (default 40: 4,800 requests a minute)
#   FUZZ_WORKERS       concurrent schemathesis workers (default 1: with 2, schemathesis 4.32.5 once
#                      failed inside Hypothesis with "AST constructor recursion depth mismatch",
#                      a thread-safety error of the tool, not a finding about the API)
#   FUZZ_MEDIA_STREAMS media streams sent malformed frames (default 40 with FUZZ_MAX_EXAMPLES under 50, else 300)
#   FUZZ_SEED          fixed seed, to repeat a run
#   FUZZ_KEEP=1        keep the data folder and logs
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SCHEMATHESIS_VERSION=4.32.5
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-150}
KEYS=${FUZZ_KEYS:-40}
WORKERS=${FUZZ_WORKERS:-1}
MEDIA_STREAMS=${FUZZ_MEDIA_STREAMS:-$(( MAX_EXAMPLES < 50 ? 40 : 300 ))}
CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
venv=.fuzz/venv
say() { echo "[fuzz] $*" >&2; }

if [ "$("$venv/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version $SCHEMATHESIS_VERSION" ]; then
  say "installing schemathesis $SCHEMATHESIS_VERSION into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi
if [ ! -f dist/src/main/start.js ]; then
  say "compiling TypeScript"
  npx --no-install tsc -p tsconfig.build.json
fi

mkdir -p .fuzz
run_dir=$(mktemp -d "$PWD/.fuzz/run-XXXXXX")
read -r api_port worker_port temporal_port ui_port ferret_port media_port < <(node -e '
  const { freePort } = require("./dist/src/local/net.js");
  (async () => { const ports = []; for (let i = 0; i < 6; i++) ports.push(await freePort()); console.log(ports.join(" ")); })();')
token="ctk_fuzz_$(node -e 'process.stdout.write(require("node:crypto").randomBytes(16).toString("hex"))')"
api="http://127.0.0.1:$api_port"

say "starting the system on $api (data in $run_dir)"
env -u MONGODB_URL -u TEMPORAL_ADDRESS \
  DATA_DIR="$run_dir/data" PORT="$api_port" WORKER_METRICS_PORT="$worker_port" TEMPORAL_PORT="$temporal_port" \
  TEMPORAL_UI_PORT="$ui_port" FERRETDB_PORT="$ferret_port" MEDIA_PORT="$media_port" CONSOLE_TOKEN="$token" LOG_LEVEL=warn \
  node dist/src/main/start.js >"$run_dir/launcher.log" 2>&1 &
launcher=$!
cleanup() {
  if kill -0 "$launcher" 2>/dev/null; then
    kill -TERM "$launcher"
    wait "$launcher" || true
  fi
  if [ "${FUZZ_KEEP:-}" = 1 ]; then say "kept $run_dir"; else rm -rf "$run_dir"; fi
}
trap cleanup EXIT

for _ in $(seq 1 360); do
  grep -q '^\[start\] press Ctrl-C to stop' "$run_dir/launcher.log" && break
  if ! kill -0 "$launcher" 2>/dev/null; then
    say "the launcher exited before it was ready:"; cat "$run_dir/launcher.log" >&2; exit 1
  fi
  sleep 0.5
done
grep -q '^\[start\] press Ctrl-C to stop' "$run_dir/launcher.log" || { say "the system was not ready in 180 s"; cat "$run_dir/launcher.log" >&2; exit 1; }

say "creating $KEYS API keys for ws_demo through the console API"
API="$api" TOKEN="$token" KEYS="$KEYS" node -e '
  const { SCOPES } = require("./dist/src/domain/scopes.js");
  (async () => {
    for (let i = 0; i < Number(process.env.KEYS); i++) {
      const res = await fetch(`${process.env.API}/console/v1/workspaces/ws_demo/keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${process.env.TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ name: `Fuzz ${i + 1}`, scopes: SCOPES }),
      });
      if (res.status !== 201) throw new Error(`key creation answered ${res.status}: ${await res.text()}`);
      console.log((await res.json()).api_key);
    }
  })().catch((err) => { console.error(err.message); process.exit(1); });' >"$run_dir/api-keys"
echo "$token" >"$run_dir/console-token"

# Schemathesis counts test cases; each is one request, except the stateful phase's chains.
# A third argument names a schemathesis config file (the console's pins `workspace_id`).
fuzz() {
  local document=$1 tokens=$2 config=$3
  shift 3
  say "schemathesis against $document (max $MAX_EXAMPLES examples per operation, $WORKERS workers)"
  SCHEMATHESIS_HOOKS=scripts/fuzz_hooks.py FUZZ_TOKENS_FILE="$tokens" \
    "$venv/bin/schemathesis" ${config:+--config-file "$config"} run "$document" \
    --checks "$CHECKS" \
    --max-examples "$MAX_EXAMPLES" \
    --workers "$WORKERS" \
    --generation-database none \
    --request-timeout 30 \
    --no-color \
    ${FUZZ_SEED:+--seed "$FUZZ_SEED"} \
    "$@" 2>&1 | sed -E 's/^(=+ .* in [0-9.]+s =+)$/[fuzz] \1/'
}

status=0
fuzz "$api/api/v1/openapi.json" "$run_dir/api-keys" "" || status=1
# The console next (after the public run, whose keys it may revoke). Its routes sit under
# /workspaces/{workspace_id}: with made-up ids nearly all of them stop at 404, so the id is
# pinned to the seeded demo workspace (its agents, numbers, senders and templates) and the
# rest of each request is generated. The token also fetches the document itself.
console_doc=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $token" "$api/console/v1/openapi.json" || true)
if [ "$console_doc" != 200 ]; then
  say "the console document $api/console/v1/openapi.json answered $console_doc"; status=1
else
  # A ticket, a draft campaign and a webhook endpoint of that workspace pin their ids too;
  # each one that cannot be made is left to generation (and mostly 404).
  API="$api" TOKEN="$token" node -e '
    const post = async (path, auth, body) => {
      const res = await fetch(`${process.env.API}${path}`, { method: "POST", headers: { authorization: `Bearer ${auth}`, "content-type": "application/json" }, body: JSON.stringify(body) });
      return res.ok ? res.json() : (console.error(`[fuzz] ${path} answered ${res.status}, not pinned: ${(await res.text()).slice(0, 300)}`), null);
    };
    (async () => {
      // A key of its own: the fuzzed ones may have used their minute.
      const { SCOPES } = require("./dist/src/domain/scopes.js");
      const key = (await post("/console/v1/workspaces/ws_demo/keys", process.env.TOKEN, { name: "Fuzz pins", scopes: SCOPES }))?.api_key;
      const lines = ["[parameters]", "\"path.workspace_id\" = \"ws_demo\""];
      const pin = (name, value) => value && lines.push(`"path.${name}" = ${JSON.stringify(value)}`);
      pin("ticket_id", (key && await post("/api/v1/tickets", key, { subject: "Fuzz", description: "Made by scripts/fuzz.sh", requester_name: "Fuzz" }))?.ticket_id);
      pin("campaign_id", (key && await post("/api/v1/campaigns", key, { name: "Fuzz", audience: {}, template: { name: "order_update", variables: ["{{contact.name}}", "A-1", "Friday"] } }))?.campaign_id);
      pin("webhook_id", (await post("/console/v1/workspaces/ws_demo/webhooks", process.env.TOKEN, { url: "http://127.0.0.1:9/fuzz" }))?.webhook_id);
      console.log(lines.join("\n"));
    })().catch((err) => { console.error(err.message); process.exit(1); });' >"$run_dir/console-schemathesis.toml"
  fuzz "$api/console/v1/openapi.json" "$run_dir/console-token" "$run_dir/console-schemathesis.toml" -H "Authorization: Bearer $token" || status=1
fi
# What the API itself counted (its /metrics), so a run's size is stated in requests.
curl -s "$api/metrics" | node -e '
  let text = ""; process.stdin.on("data", (d) => (text += d)).on("end", () => {
    const byClass = {};
    for (const m of text.matchAll(/^http_requests_total\{[^}]*status="(\d)\d\d"[^}]*\} (\d+)/gm)) byClass[`${m[1]}xx`] = (byClass[`${m[1]}xx`] ?? 0) + Number(m[2]);
    const total = Object.values(byClass).reduce((a, b) => a + b, 0);
    console.error(`[fuzz] the API answered ${total} requests: ${Object.entries(byClass).sort().map(([k, v]) => `${k} ${v}`).join(", ")}`);
  });' || true
# The media process's streams: malformed frames must end one stream each, never the process.
MEDIA="http://127.0.0.1:$media_port" MONGODB_URL="mongodb://127.0.0.1:$ferret_port/" STREAMS="$MEDIA_STREAMS" \
  node scripts/fuzz-media.cjs || status=1
if grep -q 'exited unexpectedly' "$run_dir/launcher.log"; then
  say "a process crashed during the run:"; grep 'exited unexpectedly' "$run_dir/launcher.log" >&2; status=1
fi
[ $status = 0 ] && say "no failures" || say "FAILED (logs: FUZZ_KEEP=1 keeps $run_dir)"
exit $status
