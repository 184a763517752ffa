import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads the `.cpuprofile` files `node --cpu-prof` wrote and says where a process spent its
 * CPU: self time grouped by owner (our compiled code by directory, each npm package, Node's
 * internals, the garbage collector, idle), and the busiest functions.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** Microseconds on the monotonic clock, as `process.hrtime` reads it. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of monotonic time in microseconds (`process.hrtime.bigint() / 1000n`). */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

export interface ProfileSummary {
  file: string;
  /** False when no sample fell in the window asked for, so the whole profile was summarised. */
  windowed: boolean;
  /** Sampled milliseconds, idle excluded. */
  busyMs: number;
  idleMs: number;
  byOwner: { owner: string; ms: number; share: number }[];
  topFunctions: { fn: string; ms: number; share: number }[];
}

function ownerOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0) {
    const parts = url.slice(dist + '/dist/'.length).split('/');
    return `ours: ${parts[0] === 'src' ? `src/${parts[1]}` : parts[0]}`;
  }
  // The worker runs workflow code from its bundle inside V8 contexts.
  if (/workflow|webpack/i.test(url)) return 'workflow bundle';
  return url;
}

function shortUrl(url: string): string {
  const cut = Math.max(url.lastIndexOf('/node_modules/') + '/node_modules/'.length - 1, url.indexOf('/dist/') + 1, 0);
  return url.slice(cut);
}

/** Self time per node, only of samples taken inside `window` when given. */
function selfTimes(profile: CpuProfile, window: ProfileWindow | null): Map<number, number> {
  const self = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    self.set(id, (self.get(id) ?? 0) + delta / 1000);
  });
  return self;
}

/**
 * Summarises one profile; with `window`, only the samples taken in it (the load, not the
 * start-up, when the worker bundles its workflows).
 */
export function summariseProfile(file: string, window: ProfileWindow | null = null, top = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  let self = selfTimes(profile, window);
  const windowed = window !== null && self.size > 0;
  if (!windowed) self = selfTimes(profile, null);
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  let idleMs = 0;
  let busyMs = 0;
  for (const [id, ms] of self) {
    const frame = nodes.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    const owner = ownerOf(frame);
    owners.set(owner, (owners.get(owner) ?? 0) + ms);
    const fn = `${frame.functionName || '(anonymous)'} ${frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + ms);
  }
  const ranked = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, ms]) => ({ name, ms: Math.round(ms), share: busyMs ? Math.round((ms / busyMs) * 1000) / 10 : 0 }));
  return {
    file,
    windowed,
    busyMs: Math.round(busyMs),
    idleMs: Math.round(idleMs),
    byOwner: ranked(owners).map(({ name, ms, share }) => ({ owner: name, ms, share })),
    topFunctions: ranked(functions).map(({ name, ms, share }) => ({ fn: name, ms, share })),
  };
}

/** Every profile in `dir` (one per thread: the main thread and the worker's workflow threads). */
export function summariseProfiles(dir: string, window: ProfileWindow | null): ProfileSummary[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort()
    .map((f) => summariseProfile(join(dir, f), window));
}

export function formatProfile(name: string, s: ProfileSummary): string {
  const span = s.windowed ? 'in the load window' : 'over the whole run';
  const lines = [`  ${name}: ${(s.busyMs / 1000).toFixed(1)} s busy, ${(s.idleMs / 1000).toFixed(1)} s idle, sampled ${span} — ${s.file}`];
  lines.push('    by owner:   ' + s.byOwner.map((o) => `${o.owner} ${o.share}%`).join(', '));
  lines.push('    functions:');
  for (const f of s.topFunctions.slice(0, 8)) lines.push(`      ${String(f.share).padStart(5)}%  ${f.fn}`);
  return lines.join('\n');
}
