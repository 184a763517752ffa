import { agentExists, createAgent, registerNumber, updateAgent, updateNumber } from '../../../src/calls/agentsAndNumbers';
import { collections, type WorkspaceDoc } from '../../../src/db/collections';
import { toE164 } from '../../../src/contacts/contactIdentity';
import { ApiError } from '../../errors';
import { route, type RouteDef } from '../../route';
import { validationError } from '../../validation';
import { unusablePhone } from '../../shared/personFields';
import { CONSOLE_PREFIX, tenantList, workspaceParams, type ConsoleDeps } from '../deps';
import { agentRecord, agentView, numberRecord, numberView } from '../views';
import {
  agentParams,
  createAgentBody,
  createNumberBody,
  numberParams,
  updateAgentBody,
  updateNumberBody,
} from './numbers.schema';

const NUMBER_NOT_FOUND = 'Number not found in this workspace.';
const AGENT_NOT_FOUND = 'Agent not found in this workspace.';

/**
 * A team line as stored: E.164 by the project's phone rule, read in the workspace's country;
 * null clears it. Refused (400 at `body.team_line`) when it is no usable number, or is the
 * number itself (a hand-over would ring the line the caller is on).
 */
function teamLine(raw: string | null | undefined, workspace: WorkspaceDoc, number: string): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const e164 = toE164(raw, workspace.country);
  if (!e164) throw unusablePhone(['body', 'team_line'], workspace.country);
  if (e164 === number) {
    throw validationError([{ loc: ['body', 'team_line'], msg: 'The team line must be another number than the one the agent answers.', type: 'team_line_self' }]);
  }
  return e164;
}

/** Agents and the numbers they are deployed to: one number has one agent. */
export function agentAndNumberRoutes(deps: ConsoleDeps): RouteDef[] {
  const { agents, phoneNumbers } = collections(deps.db);

  async function ownAgent(tenantId: string, agentId: string | null | undefined): Promise<void> {
    if (agentId && !(await agentExists(deps.db, tenantId, agentId))) {
      throw new ApiError('not_found', AGENT_NOT_FOUND);
    }
  }

  return [
    route({
      method: 'post',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/agents`,
      operationId: 'createAgent',
      summary: 'Create an agent, optionally with its voice settings (persona, instructions, voice, language, greeting, idle_seconds).',
      params: workspaceParams({}),
      body: createAgentBody,
      response: { status: 201, description: 'The agent (`agent_id` `bot_…`).', schema: agentRecord },
      errors: ['not_found'],
      handler: async (ctx, { body }) => {
        const agent = await createAgent(deps.db, ctx.state.workspace!._id, body, deps.now());
        ctx.status = 201;
        ctx.body = agentView(agent);
      },
    }),
    tenantList('agents', 'listAgents', agents, agentView, agentRecord),
    route({
      method: 'get',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/agents/{agent_id}`,
      operationId: 'getAgent',
      summary: 'Read an agent with its voice settings (defaults filled in; `voice_set` names the ones it set).',
      params: agentParams,
      notFound: { agent_id: AGENT_NOT_FOUND },
      response: { status: 200, description: 'The agent.', schema: agentRecord },
      errors: ['not_found'],
      handler: async (ctx, { params }) => {
        const agent = await agents.findOne({ _id: params.agent_id, tenant_id: ctx.state.workspace!._id });
        if (!agent) throw new ApiError('not_found', AGENT_NOT_FOUND);
        ctx.body = agentView(agent);
      },
    }),
    route({
      method: 'patch',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/agents/{agent_id}`,
      operationId: 'updateAgent',
      summary: 'Change an agent’s name, maximum call length or voice settings; a voice field set to null goes back to its default.',
      params: agentParams,
      notFound: { agent_id: AGENT_NOT_FOUND },
      body: updateAgentBody,
      response: { status: 200, description: 'The agent.', schema: agentRecord },
      errors: ['not_found'],
      handler: async (ctx, { params, body }) => {
        const updated = await updateAgent(deps.db, ctx.state.workspace!._id, params.agent_id, body);
        if (!updated) throw new ApiError('not_found', AGENT_NOT_FOUND);
        ctx.body = agentView(updated);
      },
    }),
    route({
      method: 'post',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/numbers`,
      operationId: 'createNumber',
      summary: 'Register a phone number, optionally with the agent deployed to it and its team line.',
      params: workspaceParams({}),
      body: createNumberBody,
      response: { status: 201, description: 'The number.', schema: numberRecord },
      errors: ['not_found', 'conflict'],
      handler: async (ctx, { body }) => {
        const workspace = ctx.state.workspace!;
        const line = teamLine(body.team_line, workspace, body.number);
        await ownAgent(workspace._id, body.agent_id);
        const doc = await registerNumber(deps.db, workspace._id, { ...body, team_line: line ?? null }, deps.now());
        if (!doc) throw new ApiError('conflict', 'That number is already registered.', { reason: 'number_taken' });
        ctx.status = 201;
        ctx.body = numberView(doc);
      },
    }),
    tenantList('numbers', 'listNumbers', phoneNumbers, numberView, numberRecord),
    route({
      method: 'patch',
      path: `${CONSOLE_PREFIX}/workspaces/{workspace_id}/numbers/{number}`,
      operationId: 'updateNumber',
      summary: 'Deploy an agent to a number (or `null` to undeploy), set its team line (or `null` for none), or change its state. `{number}` with or without `+`.',
      params: numberParams,
      notFound: { number: NUMBER_NOT_FOUND },
      body: updateNumberBody,
      response: { status: 200, description: 'The number.', schema: numberRecord },
      errors: ['not_found'],
      handler: async (ctx, { params, body }) => {
        const workspace = ctx.state.workspace!;
        const digits = params.number.replace(/\D/g, '');
        const change = { ...body };
        if (body.team_line !== undefined) change.team_line = teamLine(body.team_line, workspace, `+${digits}`);
        await ownAgent(workspace._id, body.agent_id);
        const updated = await updateNumber(deps.db, workspace._id, digits, change);
        if (!updated) throw new ApiError('not_found', NUMBER_NOT_FOUND);
        ctx.body = numberView(updated);
      },
    }),
  ];
}
