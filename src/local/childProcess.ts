import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Watchdog } from './watchdog';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  /** Resolves with the exit code (or signal) once the process has gone. */
  exited: Promise<number | string>;
  /** SIGTERM (and SIGCONT), then SIGKILL after `graceMs`; resolves when the process has gone. */
  stop(graceMs?: number): Promise<void>;
  /** Last lines of its log, for a start-up failure message. */
  tail(lines?: number): string;
}

/**
 * Starts a long-running child with stdout and stderr appended to a log file, so a person's
 * terminal shows the launcher's own lines and the logs stay readable afterwards.
 */
export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    logFile: string;
    /**
     * The launcher's children: each in a process group of its own, so a terminal's Ctrl-C
     * reaches only the launcher, which then stops the children in order; and each group
     * watched by the launcher's watchdog, so no child outlives the launcher however it ends.
     * Unset for test servers, which must die with the test run.
     */
    watchdog?: Watchdog;
    /** A Node child gets an IPC channel, whose closing tells it that its parent has gone. */
    ipc?: boolean;
    /** Run as this user (PostgreSQL refuses to run as root): set only when the launcher is root. */
    user?: { uid: number; gid: number };
  },
): ManagedProcess {
  mkdirSync(dirname(options.logFile), { recursive: true });
  const fd = openSync(options.logFile, 'a');
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: options.ipc ? ['ignore', fd, fd, 'ipc'] : ['ignore', fd, fd],
    detached: options.watchdog !== undefined,
    ...(options.user ?? {}),
  });
  closeSync(fd);
  const { watchdog } = options;
  if (watchdog && child.pid !== undefined) {
    const pid = child.pid;
    watchdog.watch(pid);
    child.once('exit', () => watchdog.forget(pid));
  }
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
    child.once('error', (err) => resolve(`spawn error: ${err.message}`));
  });
  return {
    name,
    child,
    logFile: options.logFile,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      // A frozen (SIGSTOPped) child handles SIGTERM only once it runs again.
      child.kill('SIGCONT');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    tail(lines = 20) {
      try {
        return readFileSync(options.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '(no log)';
      }
    },
  };
}

/**
 * Waits for `ready`, failing at once (with the log tail) if the process exits first. A
 * process that never became ready is stopped, so a failed start (or restart) leaves no
 * stray server holding its port.
 */
export async function untilReady<T>(proc: ManagedProcess, ready: Promise<T>): Promise<T> {
  const died = proc.exited.then((code) => {
    throw new Error(`${proc.name} exited (${code}) during start-up. Last log lines from ${proc.logFile}:\n${proc.tail()}`);
  });
  try {
    return await Promise.race([ready, died]);
  } catch (err) {
    await proc.stop(2_000);
    throw err;
  }
}
