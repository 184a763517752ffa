import { writeFileSync } from 'node:fs';
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent, Document, MongoClient } from 'mongodb';

/**
 * Counts a process's database commands by shape (command, collection, the filter's top-level
 * keys and operators, one document or many) with their summed round-trip time, and writes
 * the counts to `<prefix>.<app>.<pid>.json` every few seconds. Switched on by
 * `MONGODB_OP_TALLY=<prefix>` (benchmarks); off, it costs nothing.
 *
 * Why: the cost of a campaign send on FerretDB follows the number of documents written and
 * read per send, a figure that does not depend on the machine's other load the way CPU
 * times do (docs/campaigns.md, "Where a send's database work goes").
 */

export interface OpCount {
  shape: string;
  commands: number;
  documents: number;
  /** Documents the server sent back (cursor batches, a findAndModify's value): what a read cost it to answer. */
  returned: number;
  ms: number;
}

/** How often the counts are written; `MONGODB_OP_TALLY_EVERY_MS` shortens it for a bench that reads them between phases. */
const writeEveryMs = () => Number(process.env.MONGODB_OP_TALLY_EVERY_MS ?? 5_000);

/** The documents a command's reply carries back to the client. */
export function returnedDocuments(reply: Document | undefined): number {
  if (!reply) return 0;
  const batch = reply.cursor?.firstBatch ?? reply.cursor?.nextBatch;
  if (Array.isArray(batch)) return batch.length;
  if ('value' in reply && 'lastErrorObject' in reply) return reply.value ? 1 : 0;
  return 0;
}

/** The client options that make `tallyDatabaseOps` see commands. */
export function opTallyOptions(): { monitorCommands: boolean } {
  return { monitorCommands: Boolean(process.env.MONGODB_OP_TALLY) };
}

export function filterShape(filter: Document | undefined): string {
  if (!filter) return '';
  return Object.entries(filter)
    .map(([key, value]) =>
      value !== null && typeof value === 'object' && !(value instanceof Date) && !Array.isArray(value) && Object.keys(value).every((k) => k.startsWith('$'))
        ? `${key}:${Object.keys(value).join('|')}`
        : key,
    )
    .join(',');
}

function shapeOf(event: CommandStartedEvent): { shape: string; documents: number } {
  const command = event.command;
  const collection = String(command[event.commandName] ?? '');
  const filter = command.filter ?? command.query ?? command.updates?.[0]?.q ?? command.deletes?.[0]?.q;
  const documents = command.documents?.length ?? command.updates?.length ?? command.deletes?.length ?? 1;
  const name = event.commandName === 'getMore' ? 'getMore' : `${event.commandName} ${collection}`;
  return { shape: `${name} {${filterShape(filter)}}${documents > 1 ? ' ×many' : ''}`, documents };
}

export function tallyDatabaseOps(client: MongoClient, appName: string): void {
  const prefix = process.env.MONGODB_OP_TALLY;
  if (!prefix) return;
  const counts = new Map<string, OpCount>();
  const pending = new Map<number, OpCount>();
  client.on('commandStarted', (event: CommandStartedEvent) => {
    const { shape, documents } = shapeOf(event);
    const count = counts.get(shape) ?? { shape, commands: 0, documents: 0, returned: 0, ms: 0 };
    count.commands += 1;
    count.documents += documents;
    counts.set(shape, count);
    pending.set(event.requestId, count);
  });
  const ended = (event: CommandSucceededEvent | CommandFailedEvent) => {
    const count = pending.get(event.requestId);
    pending.delete(event.requestId);
    if (!count) return;
    count.ms += event.duration;
    if ('reply' in event) count.returned += returnedDocuments(event.reply as Document);
  };
  client.on('commandSucceeded', ended);
  client.on('commandFailed', ended);
  const file = `${prefix}.${appName}.${process.pid}.json`;
  setInterval(() => {
    const rows = [...counts.values()].sort((a, b) => b.commands - a.commands);
    writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), app: appName, pid: process.pid, counts: rows }, null, 1)}\n`);
  }, writeEveryMs()).unref();
}
