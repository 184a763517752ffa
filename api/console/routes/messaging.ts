import { collections } from '../../../src/db/collections';
import { createSender, createTemplate, setTemplateStatus, updateSender } from '../../../src/messaging/senderSetup';
import { ApiError } from '../../errors';
import { route, type RouteDef } from '../../route';
import { CONSOLE_PREFIX, idParam, tenantList, workspaceParams, type ConsoleDeps } from '../deps';
import { senderRecord, senderView, templateRecord, templateView } from '../views';
import { createSenderBody, updateSenderBody, createTemplateBody, updateTemplateBody } from './messaging.schema';

const SENDER_NOT_FOUND = 'Sender not found in this workspace.';
const TEMPLATE_NOT_FOUND = 'Template not found in this workspace.';

/** WhatsApp senders and message templates with their approval status. */
export function messagingRoutes(deps: ConsoleDeps): RouteDef[] {
  const { senders, templates } = collections(deps.db);
  const base = `${CONSOLE_PREFIX}/workspaces/{workspace_id}`;

  return [
    route({
      method: 'post',
      path: `${base}/senders`,
      operationId: 'createSender',
      summary: 'Connect a WhatsApp sender; the first, or one made default, is the only default.',
      params: workspaceParams({}),
      body: createSenderBody,
      response: { status: 201, description: 'The sender (`sender_id` `snd_…`).', schema: senderRecord },
      errors: ['not_found'],
      handler: async (ctx, { body }) => {
        const doc = await createSender(deps.db, ctx.state.workspace!._id, body, deps.now());
        ctx.status = 201;
        ctx.body = senderView(doc);
      },
    }),
    tenantList('senders', 'listSenders', senders, senderView, senderRecord),
    route({
      method: 'patch',
      path: `${base}/senders/{sender_id}`,
      operationId: 'updateSender',
      summary: 'Rename a sender, make it the default, or (dis)connect it.',
      params: workspaceParams({ sender_id: idParam() }),
      notFound: { sender_id: SENDER_NOT_FOUND },
      body: updateSenderBody,
      response: { status: 200, description: 'The sender.', schema: senderRecord },
      errors: ['not_found'],
      handler: async (ctx, { params: { sender_id }, body }) => {
        const updated = await updateSender(deps.db, ctx.state.workspace!._id, sender_id, body);
        if (!updated) throw new ApiError('not_found', SENDER_NOT_FOUND);
        ctx.body = senderView(updated);
      },
    }),
    route({
      method: 'post',
      path: `${base}/templates`,
      operationId: 'createTemplate',
      summary: 'Add a message template (approved by default).',
      params: workspaceParams({}),
      body: createTemplateBody,
      response: { status: 201, description: 'The template.', schema: templateRecord },
      errors: ['not_found', 'conflict'],
      handler: async (ctx, { body }) => {
        const doc = await createTemplate(deps.db, ctx.state.workspace!._id, body, deps.now());
        if (!doc) {
          throw new ApiError('conflict', `A template ${body.name} in ${body.language} already exists.`, { reason: 'template_exists' });
        }
        ctx.status = 201;
        ctx.body = templateView(doc);
      },
    }),
    tenantList('templates', 'listTemplates', templates, templateView, templateRecord, { name: 1, language: 1 }),
    route({
      method: 'patch',
      path: `${base}/templates/{template_id}`,
      operationId: 'updateTemplate',
      summary: "Change a template's approval status.",
      params: workspaceParams({ template_id: idParam() }),
      notFound: { template_id: TEMPLATE_NOT_FOUND },
      body: updateTemplateBody,
      response: { status: 200, description: 'The template.', schema: templateRecord },
      errors: ['not_found'],
      handler: async (ctx, { params: { template_id }, body }) => {
        const updated = await setTemplateStatus(deps.db, ctx.state.workspace!._id, template_id, body);
        if (!updated) throw new ApiError('not_found', TEMPLATE_NOT_FOUND);
        ctx.body = templateView(updated);
      },
    }),
  ];
}
