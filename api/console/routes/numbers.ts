import { collections, type PhoneNumberDoc } from '../../../src/db/collections';
import { ApiError } from '../../errors';
import { route, type RouteDef } from '../../route';
import { CONSOLE_PREFIX, tenantList, workspaceParams, type ConsoleDeps } from '../deps';
import { agentRecord, agentView, numberRecord, numberView } from '../views';
import { newId } from '../../../src/domain/ids';
import { insertIfAbsent } from '../../../src/db/insertIfAbsent';
import { tenantReadModelChanged } from '../../../src/db/tenantReadCache';
import { createAgentBody, createNumberBody, updateNumberBody, numberParams } from './numbers.schema';

const NUMBER_NOT_FOUND = 'Number not found in this workspace.';

/** Agents and the numbers they are deployed to: one number has one agent. */
export function agentAndNumberRoutes(deps: ConsoleDeps): RouteDef[] {
  const { agents, phoneNumbers } = collections(deps.db);

  async function ownAgent(tenantId: string, agentId: string | null | undefined): Promise<void> {
    if (agentId && !(await agents.findOne({ _id: agentId, tenant_id: tenantId }))) {
      throw new ApiError('not_found', 'Agent not found in this workspace.');
    }
  }

  return [
    route({
      method: 'post',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/agents`,
      operationId: 'createAgent',
      summary: 'Create an agent.',
      params: workspaceParams({}),
      body: createAgentBody,
      response: { status: 201, description: 'The agent (`agent_id` `bot_…`).', schema: agentRecord },
      errors: ['not_found'],
      handler: async (ctx, { body }) => {
        const now = deps.now();
        const agent = { _id: newId('bot', now), tenant_id: ctx.state.workspace!._id, ...body, created_at: now };
        await agents.insertOne(agent);
        tenantReadModelChanged(agent.tenant_id);
        ctx.status = 201;
        ctx.body = agentView(agent);
      },
    }),
    tenantList('agents', 'listAgents', agents, agentView, agentRecord),
    route({
      method: 'post',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/numbers`,
      operationId: 'createNumber',
      summary: 'Register a phone number, optionally with the agent deployed to it.',
      params: workspaceParams({}),
      body: createNumberBody,
      response: { status: 201, description: 'The number.', schema: numberRecord },
      errors: ['not_found', 'conflict'],
      handler: async (ctx, { body }) => {
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
        tenantReadModelChanged(tenantId);
        ctx.status = 201;
        ctx.body = numberView(doc);
      },
    }),
    tenantList('numbers', 'listNumbers', phoneNumbers, numberView, numberRecord),
    route({
      method: 'patch',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/numbers/{number}`,
      operationId: 'updateNumber',
      summary: 'Deploy an agent to a number (or `null` to undeploy), or change its state. `{number}` with or without `+`.',
      params: numberParams,
      notFound: { number: NUMBER_NOT_FOUND },
      body: updateNumberBody,
      response: { status: 200, description: 'The number.', schema: numberRecord },
      errors: ['not_found'],
      handler: async (ctx, { params, body }) => {
        const tenantId = ctx.state.workspace!._id;
        const digits = params.number.replace(/\D/g, '');
        await ownAgent(tenantId, body.agent_id);
        const updated = await phoneNumbers.findOneAndUpdate({ _id: digits, tenant_id: tenantId }, { $set: body }, { returnDocument: 'after' });
        if (!updated) throw new ApiError('not_found', NUMBER_NOT_FOUND);
        tenantReadModelChanged(tenantId);
        ctx.body = numberView(updated);
      },
    }),
  ];
}
