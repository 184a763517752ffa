import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient, type MongoClientOptions } from 'mongodb';
import { freePort } from '../src/local/net';
import { toolPath } from '../src/local/paths';
import { startFerretDb } from '../src/local/servers';
import { refuseClusterTarget } from './clusterTarget';

export interface BenchFerret {
  mongo: MongoClient;
  /** The FerretDB process, whose CPU a bench reads. */
  pid: number;
  binary: string;
}

/**
 * Runs `use` on a FerretDB (SQLite) of its own in a new temporary directory, then closes the
 * client, stops the server and removes the directory, however `use` ends. The binary is
 * BENCH_FERRETDB_BINARY (an unpatched build to compare), else the one in TOOLS_DIR.
 */
export async function withBenchFerret<T>(dirPrefix: string, use: (ferret: BenchFerret) => Promise<T>, clientOptions: MongoClientOptions = {}): Promise<T> {
  refuseClusterTarget(dirPrefix.replace(/-$/, ''));
  const binary = process.env.BENCH_FERRETDB_BINARY ?? toolPath(process.env.TOOLS_DIR ?? '.tools', 'ferretdb');
  const dir = mkdtempSync(join(tmpdir(), dirPrefix));
  try {
    const ferret = await startFerretDb({ binary, port: await freePort(), dataDir: dir, logFile: join(dir, 'ferretdb.log') });
    try {
      const mongo = await new MongoClient(ferret.address, clientOptions).connect();
      try {
        return await use({ mongo, pid: ferret.process.child.pid!, binary });
      } finally {
        await mongo.close();
      }
    } finally {
      await ferret.process.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
