import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { OpCount } from '../src/observability/databaseOpTally';

/**
 * The database commands and documents per unit of work (a send, say) from the files a run
 * with `MONGODB_OP_TALLY=<prefix>` left (src/observability/databaseOpTally.ts), per process
 * and shape, most frequent first. `BENCH_OP_TALLY=1 npm run bench:campaigns` prints it for
 * the sends; by hand: `node dist/bench/opTallyReport.js <prefix> <units> [unit name]`.
 */
export function formatOpTally(prefix: string, units: number, unit = 'send'): string {
  const dir = dirname(prefix);
  const files = readdirSync(dir).filter((f) => f.startsWith(`${basename(prefix)}.`) && f.endsWith('.json'));
  const lines: string[] = [];
  for (const file of files.sort()) {
    const tally = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { app: string; pid: number; counts: OpCount[] };
    const commands = tally.counts.reduce((sum, c) => sum + c.commands, 0);
    const documents = tally.counts.reduce((sum, c) => sum + c.documents, 0);
    lines.push(`${tally.app} (pid ${tally.pid}): ${(commands / units).toFixed(1)} commands, ${(documents / units).toFixed(1)} documents per ${unit}`);
    for (const c of tally.counts.filter((c) => c.commands / units >= 0.05)) {
      lines.push(`  ${(c.commands / units).toFixed(2).padStart(7)} cmd ${(c.documents / units).toFixed(2).padStart(7)} doc ${(c.ms / c.commands).toFixed(1).padStart(6)} ms  ${c.shape}`);
    }
  }
  return lines.join('\n');
}

/** Each process's database commands per unit (its name → commands), from the same files as `formatOpTally`. */
export function opTallyPerUnit(prefix: string, units: number): Record<string, number> {
  const dir = dirname(prefix);
  const per: Record<string, number> = {};
  for (const file of readdirSync(dir).filter((f) => f.startsWith(`${basename(prefix)}.`) && f.endsWith('.json'))) {
    const tally = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { app: string; counts: OpCount[] };
    per[tally.app] = (per[tally.app] ?? 0) + tally.counts.reduce((sum, c) => sum + c.commands, 0) / units;
  }
  return per;
}

if (require.main === module) {
  const [prefix, units, unit] = process.argv.slice(2);
  if (!prefix || !units) {
    process.stderr.write('usage: opTallyReport <prefix> <units> [unit name]\n');
    process.exit(2);
  }
  process.stdout.write(`${formatOpTally(prefix, Number(units), unit)}\n`);
}
