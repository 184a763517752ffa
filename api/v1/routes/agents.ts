import { z } from 'zod';
import { collections, type AgentDoc } from '../../../src/db/collections';
import { formatTimestamp } from '../../format';
import { page } from '../../pagination';
import type { PublicDeps } from '../deps';
import { route, type RouteDef } from '../../route';
import { agentItem, agentsQuery } from './agents.schema';

const LIST = 'agents';

export function agentsRoutes(deps: Pick<PublicDeps, 'db' | 'cursors'>): RouteDef[] {
  const c = collections(deps.db);
  return [
    route({
      method: 'get',
      path: '/api/v1/agents',
      operationId: 'listAgents',
      summary: 'List agents, oldest first, with the numbers each is deployed to.',
      auth: { scope: 'agents:read' },
      query: agentsQuery,
      response: {
        status: 200,
        description: 'A page of agents.',
        schema: z.object({ items: z.array(agentItem), next_cursor: z.string().nullable() }),
      },
      handler: async (ctx, { query }) => {
        const tenantId = ctx.state.workspace!._id;
        const { limit, cursor } = query;
        const filter: Record<string, unknown> = { tenant_id: tenantId };
        if (cursor) {
          const [createdAt, id] = deps.cursors.decode(cursor, tenantId, LIST) as [string, string];
          const after = new Date(createdAt);
          filter.$or = [{ created_at: { $gt: after } }, { created_at: after, _id: { $gt: id } }];
        }
        const docs = await c.agents.find(filter).sort({ created_at: 1, _id: 1 }).limit(limit).toArray();
        const numbers = await c.phoneNumbers
          .find({ tenant_id: tenantId, active: true, agent_id: { $in: docs.map((d) => d._id) } })
          .toArray();
        ctx.body = page(
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
      },
    }),
  ];
}
