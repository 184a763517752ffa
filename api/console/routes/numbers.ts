import { agentExists, createAgent, findAgent, registerNumber, updateAgent, updateNumber } from '../../../src/calls/agentsAndNumbers';
import { collections, type WorkspaceDoc } from '../../../src/db/collections';
import { toE164 } from '../../../src/contacts/contactIdentity';
import { ApiError, found } from '../../errors';
import type { RouteDef } from '../../route';
import { validationError } from '../../validation';
import { unusablePhone } from '../../shared/personFields';
import { tenantList, workspaceGroup, type ConsoleDeps } from '../deps';
import { agentRecord, agentView, numberRecord, numberView } from '../views';
import {
  createAgentBody,
  createNumberBody,
  numberParam,
  updateAgentBody,
  updateNumberBody,
} from './numbers.schema';

const ws = workspaceGroup();

const NUMBER_NOT_FOUND = 'Number not found in this workspace.';
const AGENT_NOT_FOUND = 'Agent not found in this workspace.';
/** `agents/{agent_id}`: an agent of the workspace, or 404. */
const agent = ws.record('agent_id', AGENT_NOT_FOUND);
const phoneNumber = ws.record('number', NUMBER_NOT_FOUND, numberParam);

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
    ws.post('createAgent', 'agents', {
      summary: 'Create an agent, optionally with its voice settings (persona, instructions, voice, language, greeting, idle_seconds).',
      body: createAgentBody,
      response: { status: 201, description: 'The agent (`agent_id` `bot_…`).', schema: agentRecord },
      handler: async (ctx, { body, tenantId }) => agentView(await createAgent(deps.db, tenantId, body, deps.now())),
    }),
    tenantList('agents', 'listAgents', agents, agentView, agentRecord),
    agent.get('getAgent', 'agents/{agent_id}', {
      summary: 'Read an agent with its voice settings (defaults filled in; `voice_set` names the ones it set).',
      response: { status: 200, description: 'The agent.', schema: agentRecord },
      handler: async (ctx, { params, tenantId }) => agentView(found(await findAgent(deps.db, tenantId, params.agent_id), AGENT_NOT_FOUND)),
    }),
    agent.patch('updateAgent', 'agents/{agent_id}', {
      summary: 'Change an agent’s name, maximum call length or voice settings; a voice field set to null goes back to its default.',
      body: updateAgentBody,
      response: { status: 200, description: 'The agent.', schema: agentRecord },
      handler: async (ctx, { params, body, tenantId }) => agentView(found(await updateAgent(deps.db, tenantId, params.agent_id, body), AGENT_NOT_FOUND)),
    }),
    ws.post('createNumber', 'numbers', {
      summary: 'Register a phone number, optionally with the agent deployed to it and its team line.',
      body: createNumberBody,
      response: { status: 201, description: 'The number.', schema: numberRecord },
      errors: ['conflict'],
      handler: async (ctx, { body, workspace }) => {
        const line = teamLine(body.team_line, workspace, body.number);
        await ownAgent(workspace._id, body.agent_id);
        const doc = await registerNumber(deps.db, workspace._id, { ...body, team_line: line ?? null }, deps.now());
        if (!doc) throw new ApiError('conflict', 'That number is already registered.', { reason: 'number_taken' });
        return numberView(doc);
      },
    }),
    tenantList('numbers', 'listNumbers', phoneNumbers, numberView, numberRecord),
    phoneNumber.patch('updateNumber', 'numbers/{number}', {
      summary: 'Deploy an agent to a number (or `null` to undeploy), set its team line (or `null` for none), or change its state. `{number}` with or without `+`.',
      body: updateNumberBody,
      response: { status: 200, description: 'The number.', schema: numberRecord },
      handler: async (ctx, { params, body, workspace }) => {
        const digits = params.number.replace(/\D/g, '');
        const change = { ...body };
        if (body.team_line !== undefined) change.team_line = teamLine(body.team_line, workspace, `+${digits}`);
        await ownAgent(workspace._id, body.agent_id);
        return numberView(found(await updateNumber(deps.db, workspace._id, digits, change), NUMBER_NOT_FOUND));
      },
    }),
  ];
}
