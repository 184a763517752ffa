import type { Collection, Db } from 'mongodb';
import type { WorkspaceDoc } from '../db/collections';
import { isDuplicateKey } from '../db/duplicateKey';

export interface TicketAssignee {
  /** The team member's id in the business's own systems (or the console's); free text. */
  id: string;
  name: string;
}

/**
 * A workspace's ticket settings, kept on the workspace document as `ticket_settings`.
 * Workspaces written before the field existed have none and get the defaults.
 */
export interface TicketSettings {
  /** Assign each new ticket as it is created. */
  auto_assign: boolean;
  /** `round_robin` takes the assignees in turn; `first` always gives the first one. */
  assignment: 'round_robin' | 'first';
  assignees: TicketAssignee[];
}

export const DEFAULT_TICKET_SETTINGS: TicketSettings = { auto_assign: false, assignment: 'round_robin', assignees: [] };

export type WorkspaceWithTicketSettings = WorkspaceDoc & { ticket_settings?: Partial<TicketSettings> };

export function ticketSettingsOf(workspace: WorkspaceDoc): TicketSettings {
  const stored = (workspace as WorkspaceWithTicketSettings).ticket_settings ?? {};
  return { ...DEFAULT_TICKET_SETTINGS, ...stored };
}

interface AssignmentCounterDoc {
  /** The workspace id. */
  _id: string;
  next: number;
}

function counters(db: Db): Collection<AssignmentCounterDoc> {
  return db.collection<AssignmentCounterDoc>('ticket_assignment_counters');
}

/** The turn counter behind round robin: one document per workspace, incremented per ticket. */
async function takeTurn(db: Db, tenantId: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      const doc = await counters(db).findOneAndUpdate({ _id: tenantId }, { $inc: { next: 1 } }, { upsert: true, returnDocument: 'after' });
      return (doc?.next ?? 1) - 1;
    } catch (err) {
      // Two first tickets racing to create the counter: the loser increments the winner's.
      if (attempt > 0 || !isDuplicateKey(err)) throw err;
    }
  }
}

/**
 * Who a new ticket goes to, or null when the settings do not assign. On FerretDB the
 * counter's increment is not atomic under concurrency (its updates read, then write), so
 * two tickets created at the same instant may get the same turn; on MongoDB each gets its own.
 */
export async function pickAssignee(db: Db, workspace: WorkspaceDoc): Promise<TicketAssignee | null> {
  const settings = ticketSettingsOf(workspace);
  if (!settings.auto_assign || settings.assignees.length === 0) return null;
  if (settings.assignment === 'first') return settings.assignees[0]!;
  const turn = await takeTurn(db, workspace._id);
  return settings.assignees[turn % settings.assignees.length]!;
}
