import Router from '@koa/router';
import { z } from 'zod';
import { collections, type PhoneNumberDoc } from '../../../src/db/collections';
import type { RequestState } from '../../context';
import { ApiError } from '../../errors';
import { bodyOf, tenantList, withWorkspaceBody, type ConsoleDeps, type Params } from '../deps';
import { agentView, numberView } from '../views';
import { newId } from '../../../src/domain/ids';
import { insertIfAbsent } from '../../../src/db/insertIfAbsent';

const e164 = z.string().regex(/^\+[1-9]\d{6,14}$/, 'expected E.164: + and 7 to 15 digits');

export const createAgentBody = z.object({
  name: z.string().trim().min(1).max(120),
  max_call_minutes: z.number().int().min(1).max(120).default(10),
});

export const createNumberBody = z.object({
  number: e164,
  agent_id: z.string().max(64).nullable().default(null),
  recording: z.boolean().default(false),
});

export const updateNumberBody = z
  .object({ agent_id: z.string().max(64).nullable(), active: z.boolean(), recording: z.boolean() })
  .partial()
  .strict();

/** Agents and the numbers they are deployed to: one number has one agent. */
export function agentAndNumberRoutes(router: Router<RequestState>, deps: ConsoleDeps): void {
  const { agents, phoneNumbers } = collections(deps.db);

  async function ownAgent(tenantId: string, agentId: string | null | undefined): Promise<void> {
    if (agentId && !(await agents.findOne({ _id: agentId, tenant_id: tenantId }))) {
      throw new ApiError('not_found', 'Agent not found in this workspace.');
    }
  }

  router.post('/workspaces/:workspace_id/agents', ...withWorkspaceBody(deps, createAgentBody), async (ctx) => {
    const body = bodyOf(ctx, createAgentBody);
    const now = deps.now();
    const agent = { _id: newId('bot', now), tenant_id: ctx.state.workspace!._id, ...body, created_at: now };
    await agents.insertOne(agent);
    ctx.status = 201;
    ctx.body = agentView(agent);
  });

  tenantList(router, deps, 'agents', agents, agentView);

  router.post('/workspaces/:workspace_id/numbers', ...withWorkspaceBody(deps, createNumberBody), async (ctx) => {
    const body = bodyOf(ctx, createNumberBody);
    const tenantId = ctx.state.workspace!._id;
    await ownAgent(tenantId, body.agent_id);
    const doc: PhoneNumberDoc = {
      _id: body.number.slice(1),
      tenant_id: tenantId,
      number: body.number,
      agent_id: body.agent_id,
      active: true,
      recording: body.recording,
      created_at: deps.now(),
    };
    if (!(await insertIfAbsent(phoneNumbers, doc))) {
      throw new ApiError('conflict', 'That number is already registered.', { reason: 'number_taken' });
    }
    ctx.status = 201;
    ctx.body = numberView(doc);
  });

  tenantList(router, deps, 'numbers', phoneNumbers, numberView);

  /** Deploys an agent to a number (or `null` to undeploy), or changes its state. */
  router.patch('/workspaces/:workspace_id/numbers/:number', ...withWorkspaceBody(deps, updateNumberBody), async (ctx) => {
    const body = bodyOf(ctx, updateNumberBody);
    const tenantId = ctx.state.workspace!._id;
    const digits = (ctx as unknown as Params<'number'>).params.number.replace(/\D/g, '');
    await ownAgent(tenantId, body.agent_id);
    const updated = await phoneNumbers.findOneAndUpdate({ _id: digits, tenant_id: tenantId }, { $set: body }, { returnDocument: 'after' });
    if (!updated) throw new ApiError('not_found', 'Number not found in this workspace.');
    ctx.body = numberView(updated);
  });
}
