import type { RouteDef } from '../../route';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { workspaceOverview } from '../overview';
import { overviewRecord } from './overview.schema';

const ws = workspaceGroup();

/** GET …/overview: the web console's first page, the workspace's day at a glance (api/console/overview.ts). */
export function overviewRoutes(deps: ConsoleDeps): RouteDef[] {
  return [
    ws.get('getConsoleOverview', 'overview', {
      summary:
        "The workspace's day at a glance: today's calls (in the workspace's zone) by status and outcome with the newest by name, WhatsApp messages sent today by status, active campaigns and those finished today with their progress, the daily call budget (UTC day) and the plan's allowances, and what needs attention.",
      response: { status: 200, description: 'The overview.', schema: overviewRecord },
      handler: async (ctx, { workspace }) => workspaceOverview(deps.db, workspace, deps.now()),
    }),
  ];
}
