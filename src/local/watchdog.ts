import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Stops the launcher's children when the launcher goes, however it goes (SIGKILL included).
 * Temporal and FerretDB are Go binaries that cannot watch their parent, and Linux's
 * PR_SET_PDEATHSIG is out of Node's reach, so a tiny `sh` process does it: the launcher
 * holds the write end of its stdin and tells it which process groups to watch; the kernel
 * closes that pipe when the launcher dies, and on end of input the watchdog sends SIGTERM
 * (and SIGCONT, for a frozen child) to every group still listed, then SIGKILL to any left
 * after GRACE_STEPS × 0.5 s (10 s, more on a loaded machine). It sits in a process group of
 * its own and ignores the terminal's signals, so a signal to the launcher's group does not
 * take it down first. `sh`, `kill`, `sleep` and /proc are all it needs: nothing to install.
 */

const GRACE_STEPS = 20;

const SCRIPT = `
trap '' INT TERM HUP
groups=
while read -r op pid; do
  case $op in
    watch) groups="$groups $pid" ;;
    forget) rest=; for g in $groups; do [ "$g" = "$pid" ] || rest="$rest $g"; done; groups=$rest ;;
  esac
done
[ -n "$groups" ] || exit 0
for g in $groups; do kill -s TERM -- -$g; kill -s CONT -- -$g; done 2>/dev/null
n=0
while [ $n -lt ${GRACE_STEPS} ]; do
  # Still there: a process (not a zombie a container's init left unreaped) in a listed group.
  alive=
  for s in /proc/[0-9]*/stat; do
    read -r line < "$s" || continue
    set -- \${line##*") "}
    [ "$1" = Z ] && continue
    case " $alive " in *" $3 "*) continue ;; esac
    case " $groups " in *" $3 "*) alive="$alive $3" ;; esac
  done 2>/dev/null
  [ -n "$alive" ] || exit 0
  groups=$alive
  sleep 0.5
  n=$((n + 1))
done
for g in $groups; do kill -s KILL -- -$g; done 2>/dev/null
`;

export interface Watchdog {
  /** The watchdog's own pid, for tests and logs. */
  readonly pid: number | undefined;
  /** Watches the process group led by `pid` (a child started in a group of its own). */
  watch(pid: number): void;
  /** The group has gone: a later process given the same id is not the launcher's. */
  forget(pid: number): void;
}

export function startWatchdog(onExit: (code: number | string) => void): Watchdog {
  const proc: ChildProcess = spawn('/bin/sh', ['-c', SCRIPT, 'launcher-watchdog'], {
    stdio: ['pipe', 'ignore', 'ignore'],
    detached: true,
  });
  let gone = false;
  proc.once('exit', (code, signal) => {
    gone = true;
    onExit(code ?? signal ?? 'unknown');
  });
  proc.once('error', (err) => {
    gone = true;
    onExit(`spawn error: ${err.message}`);
  });
  // A write after the watchdog died fails with EPIPE; `onExit` has said so already.
  proc.stdin!.on('error', () => undefined);
  // Neither the pipe nor the process keeps the launcher alive; it always ends by process.exit.
  proc.unref();
  const send = (line: string) => {
    if (!gone) proc.stdin!.write(`${line}\n`);
  };
  return {
    pid: proc.pid,
    watch: (pid) => send(`watch ${pid}`),
    forget: (pid) => send(`forget ${pid}`),
  };
}
