import { z } from 'zod';
import { collections, type AgentDoc } from '../../../src/db/collections';
import { TenantReadCache } from '../../../src/db/tenantReadCache';
import { formatTimestamp } from '../../format';
import { page, type Page, pageOf } from '../../pagination';
import type { PublicDeps } from '../deps';
import { routeGroup, type RouteDef } from '../../route';
import { agentItem, agentsQuery } from './agents.schema';

const LIST = 'agents';

type AgentsPage = Page<z.infer<typeof agentItem>>;

const agents = routeGroup({ auth: { scope: 'agents:read' } });

export function agentsRoutes(deps: Pick<PublicDeps, 'db' | 'cursors' | 'listCache'>): RouteDef[] {
  const c = collections(deps.db);
  // Pages come from a short-lived cache: FerretDB answers both reads by scanning (the bound
  // and why: src/db/tenantReadCache.ts).
  const pages = (deps.listCache ?? new TenantReadCache<unknown>()) as TenantReadCache<AgentsPage>;

  /** One page of agents and the active numbers each is deployed to: two list reads. */
  async function readPage(tenantId: string, filter: Record<string, unknown>, limit: number): Promise<AgentsPage> {
    const docs = await c.agents.find(filter).sort({ created_at: 1, _id: 1 }).limit(limit).toArray();
    const numbers = await c.phoneNumbers
      .find({ tenant_id: tenantId, active: true, agent_id: { $in: docs.map((d) => d._id) } })
      .toArray();
    return page(
      docs,
      limit,
      (agent: AgentDoc) => ({
        agent_id: agent._id,
        name: agent.name,
        max_call_minutes: agent.max_call_minutes,
        numbers: numbers.filter((n) => n.agent_id === agent._id).map((n) => n.number),
        created_at: formatTimestamp(agent.created_at),
      }),
      (last) => deps.cursors.encode(tenantId, LIST, [last.created_at.toISOString(), last._id]),
    );
  }

  return [
    agents.get('listAgents', '/api/v1/agents', {
      summary: 'List agents, oldest first, with the numbers each is deployed to.',
      query: agentsQuery,
      response: { status: 200, description: 'A page of agents.', schema: pageOf(agentItem) },
      handler: async (ctx, { query }) => {
        const tenantId = ctx.state.workspace!._id;
        const { limit, cursor } = query;
        const filter: Record<string, unknown> = { tenant_id: tenantId };
        if (cursor) {
          // Decoded before the cache: a damaged or foreign cursor is refused every time.
          const [createdAt, id] = deps.cursors.decode(cursor, tenantId, LIST) as [string, string];
          const after = new Date(createdAt);
          filter.$or = [{ created_at: { $gt: after } }, { created_at: after, _id: { $gt: id } }];
        }
        return pages.read(tenantId, `${LIST}:${limit}:${cursor ?? ''}`, () => readPage(tenantId, filter, limit));
      },
    }),
  ];
}
