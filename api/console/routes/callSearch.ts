import { cursorSecret } from '../../../src/auth/secrets';
import { CALL_LIST_LIMITS, listCalls } from '../../../src/calls/callList';
import type { CallDoc } from '../../../src/calls/callStore';
import { searchedNumber } from '../../../src/calls/destination';
import { zonedHourStart } from '../../../src/domain/sendWindow';
import { formatTimestamp } from '../../format';
import { CursorCodec, page } from '../../pagination';
import type { RouteDef } from '../../route';
import { callView } from '../../shared/callView';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { callPersonNames } from '../personNames';
import { consoleCallPage, consoleCallsQuery, type consoleCallListItem } from './calls.schema';
import type { z } from 'zod';

const ws = workspaceGroup();

const LIST = 'console_calls';

/** A campaign's calls carry its id and name in their metadata (activities/voiceCampaigns.ts). */
function metadataText(call: CallDoc, key: string): string | null {
  const value = call.metadata?.[key];
  return typeof value === 'string' ? value : null;
}

/** A `YYYY-MM-DD` day's first instant in the zone. */
function dayStart(day: string, timeZone: string): Date {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return zonedHourStart({ year, month, day: date }, 0, timeZone);
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

function listItem(call: CallDoc, personName: string | null): z.infer<typeof consoleCallListItem> {
  return { ...callView(call), person_name: personName, purpose: call.purpose, created_at: formatTimestamp(call.created_at), campaign_id: metadataText(call, 'campaign_id'), campaign_name: metadataText(call, 'campaign_name') };
}

/**
 * GET /console/v1/workspaces/{workspace_id}/calls: the workspace's recent calls, newest first,
 * a page at a time, narrowed by status, outcome, number and campaign (the web console's Calls
 * page; one call by id is GET …/calls/{call_id}). The query is src/calls/callList.ts.
 */
export function callSearchRoutes(deps: ConsoleDeps): RouteDef[] {
  const cursors = new CursorCodec(cursorSecret(deps.config));
  return [
    ws.get('findConsoleCalls', 'calls', {
      summary: `Recent calls, newest first (\`limit\` 1 to ${CALL_LIST_LIMITS.maxLimit}, default ${CALL_LIST_LIMITS.defaultLimit}; \`cursor\` for the next page), each as GET /api/v1/calls/{id} shows it plus \`created_at\` and its campaign. Filters, together: \`status\`, \`outcome\`, \`to\` (a number in any form POST /api/v1/calls accepts, read in the workspace's country: \`9811122233\`, \`09811122233\` and \`+91 98111 22233\` find the same calls), \`campaign_id\`, \`created_from\` and \`created_to\` (days, \`YYYY-MM-DD\`, both included, in the workspace's time zone).`,
      query: consoleCallsQuery,
      response: { status: 200, description: '`{items, next_cursor}`.', schema: consoleCallPage },
      handler: async (ctx, { query, tenantId, workspace }) => {
        const to = query.to === undefined ? undefined : searchedNumber(query.to, workspace.country);
        const filter = {
          status: query.status,
          outcome: query.outcome,
          to,
          campaignId: query.campaign_id,
          createdFrom: query.created_from ? dayStart(query.created_from, workspace.timezone) : undefined,
          createdBefore: query.created_to ? dayStart(nextDay(query.created_to), workspace.timezone) : undefined,
        };
        // The cursor belongs to these filters: another filter's cursor is refused, not misread.
        const list = `${LIST}:${JSON.stringify([query.status ?? '', query.outcome ?? '', to ?? '', query.campaign_id ?? '', query.created_from ?? '', query.created_to ?? ''])}`;
        // `[id, created_at ms]`: a span's list goes on below the last call's creation time (a cursor of before it had only the id, read then).
        const position = query.cursor ? (cursors.decode(query.cursor, tenantId, list) as [unknown, unknown?]) : null;
        const beforeId = position ? String(position[0]) : null;
        const beforeCreatedAt = typeof position?.[1] === 'number' && Number.isFinite(position[1]) ? new Date(position[1]) : null;
        const docs = await listCalls(deps.db, tenantId, filter, { beforeId, beforeCreatedAt, limit: query.limit });
        const names = await callPersonNames(deps.db, tenantId, workspace.country, docs.slice(0, query.limit));
        return page(docs, query.limit, (call) => listItem(call, names.get(call._id) ?? null), (last) => cursors.encode(tenantId, list, [last._id, last.created_at.getTime()]));
      },
    }),
  ];
}
