import { readFile, rename, writeFile } from 'node:fs/promises';

/**
 * What the launcher knows of its children, kept in one small JSON file (DATA_DIR/children.json)
 * that it rewrites on every change and that its API reads for `/readyz`: the launcher is the
 * one process that sees a child die and come back, and the API may have been restarted since.
 * Run without the launcher (production, `npm run api`) there is no file and nothing to report.
 */

export type ChildState =
  | { state: 'running'; pid: number; since: string }
  /** Between a death and a restart that came up: `since` is when it first went down. */
  | { state: 'restarting'; since: string; failures: number; last_exit: string; next_attempt_at: string };

export type ChildrenStatus = Record<string, ChildState>;

/** Written whole to a temporary file and renamed, so a reader never sees half of it. */
export async function writeChildrenStatus(file: string, status: ChildrenStatus): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(status, null, 2)}\n`);
  await rename(temporary, file);
}

/** Null when there is no launcher's file (or it cannot be read). */
export async function readChildrenStatus(file: string): Promise<ChildrenStatus | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as ChildrenStatus;
  } catch {
    return null;
  }
}

/** `ok`, or one line saying what is wrong, as `/readyz` words its other checks. */
export function describeChild(child: ChildState): string {
  if (child.state === 'running') return 'ok';
  return `down since ${child.since}: ${child.failures} failure${child.failures === 1 ? '' : 's'} in a row (last: ${child.last_exit}); next restart at ${child.next_attempt_at}`;
}
