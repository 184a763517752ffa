import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterStateKeeper, readClusterState, writeClusterState, type ClusterState } from '../../../src/local/cluster/clusterState';
import { clusterStateNaming } from '../../support/clusterStates';

/**
 * The cluster's state file is what a benchmark measures by: it must name the processes that run
 * now (a restarted child's new pid), exist only while every server answers, and never be read
 * half-written or from a launcher that has gone.
 */

const state = clusterStateNaming;

describe("the cluster's state file", () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'cluster-state-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("is written once the cluster is ready, with every child's pid, rewritten when a child comes back under a new pid, and not after the stop", () => {
    const file = join(tempDir(), 'cluster.json');
    const keeper = clusterStateKeeper(file);
    keeper.running('postgresql', 101);
    keeper.running('api-1', 201);
    expect(existsSync(file)).toBe(false);
    const { processes: _none, ...ready } = state({});
    keeper.ready(ready);
    expect(readClusterState(file).processes).toEqual({ postgresql: 101, 'api-1': 201 });
    keeper.running('api-1', 202);
    expect(readClusterState(file)).toEqual({ ...ready, processes: { postgresql: 101, 'api-1': 202 } });
    keeper.stopped();
    rmSync(file);
    keeper.running('api-1', 203);
    expect(existsSync(file)).toBe(false);
  });

  it('writes the state file whole (no temporary file left) and refuses a file whose launcher is gone, or one without pids', () => {
    const dir = tempDir();
    const file = join(dir, 'cluster.json');
    writeClusterState(file, state({ postgresql: 1 }));
    expect(readdirSync(dir)).toEqual(['cluster.json']);
    expect(readClusterState(file).processes).toEqual({ postgresql: 1 });

    const gone = spawn(process.execPath, ['-e', '']);
    writeClusterState(file, state({ postgresql: 1 }, gone.pid!));
    return new Promise<void>((resolve) => gone.on('exit', () => resolve())).then(() => {
      expect(() => readClusterState(file)).toThrow(`no running \`npm run start:cluster\` (${file}: its launcher, pid ${gone.pid}, has gone)`);
      const { processes: _pids, ...older } = state({});
      writeClusterState(file, older as ClusterState);
      expect(() => readClusterState(file)).toThrow(`${file} was written by an older launcher (no pids or database name): restart the cluster`);
      expect(() => readClusterState(join(dir, 'missing.json'))).toThrow(/^no running `npm run start:cluster` \(.*missing\.json: ENOENT/);
    });
  });
});
