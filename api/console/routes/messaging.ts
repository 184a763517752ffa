import { agentExists } from '../../../src/calls/agentsAndNumbers';
import { collections } from '../../../src/db/collections';
import { createSender, createTemplate, setTemplateStatus, updateSender } from '../../../src/messaging/senderSetup';
import { ApiError, found } from '../../errors';
import type { RouteDef } from '../../route';
import { tenantList, workspaceGroup, type ConsoleDeps } from '../deps';
import { senderRecord, senderView, templateRecord, templateView } from '../views';
import { createSenderBody, updateSenderBody, createTemplateBody, updateTemplateBody } from './messaging.schema';

const ws = workspaceGroup();

const SENDER_NOT_FOUND = 'Sender not found in this workspace.';
const TEMPLATE_NOT_FOUND = 'Template not found in this workspace.';
const AGENT_NOT_FOUND = 'Agent not found in this workspace.';
const sender = ws.record('sender_id', SENDER_NOT_FOUND);
const template = ws.record('template_id', TEMPLATE_NOT_FOUND);

/** WhatsApp senders and message templates with their approval status. */
export function messagingRoutes(deps: ConsoleDeps): RouteDef[] {
  const { senders, templates } = collections(deps.db);
  return [
    ws.post('createSender', 'senders', {
      summary: 'Connect a WhatsApp sender; the first, or one made default, is the only default.',
      body: createSenderBody,
      response: { status: 201, description: 'The sender (`sender_id` `snd_…`).', schema: senderRecord },
      handler: async (ctx, { body, tenantId }) => senderView(await createSender(deps.db, tenantId, body, deps.now())),
    }),
    tenantList('senders', 'listSenders', senders, senderView, senderRecord),
    sender.patch('updateSender', 'senders/{sender_id}', {
      summary: 'Rename a sender, make it the default, (dis)connect it, or deploy a chat agent to it (`agent_id`; `null` undeploys). One agent per sender.',
      body: updateSenderBody,
      response: { status: 200, description: 'The sender.', schema: senderRecord },
      handler: async (ctx, { params: { sender_id }, body, tenantId }) => {
        // Refused as an unknown agent is, before anything changes (as a number's deploy is).
        if (body.agent_id && !(await agentExists(deps.db, tenantId, body.agent_id))) throw new ApiError('not_found', AGENT_NOT_FOUND);
        return senderView(found(await updateSender(deps.db, tenantId, sender_id, body), SENDER_NOT_FOUND));
      },
    }),
    ws.post('createTemplate', 'templates', {
      summary: 'Add a message template (approved by default).',
      body: createTemplateBody,
      response: { status: 201, description: 'The template.', schema: templateRecord },
      errors: ['conflict'],
      handler: async (ctx, { body, tenantId }) => {
        const doc = await createTemplate(deps.db, tenantId, body, deps.now());
        if (!doc) {
          throw new ApiError('conflict', `A template ${body.name} in ${body.language} already exists.`, { reason: 'template_exists' });
        }
        return templateView(doc);
      },
    }),
    tenantList('templates', 'listTemplates', templates, templateView, templateRecord, { name: 1, language: 1 }),
    template.patch('updateTemplate', 'templates/{template_id}', {
      summary: "Change a template's approval status.",
      body: updateTemplateBody,
      response: { status: 200, description: 'The template.', schema: templateRecord },
      handler: async (ctx, { params: { template_id }, body, tenantId }) =>
        templateView(found(await setTemplateStatus(deps.db, tenantId, template_id, body), TEMPLATE_NOT_FOUND)),
    }),
  ];
}
