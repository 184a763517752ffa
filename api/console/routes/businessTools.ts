import { z } from 'zod';
import { BUSINESS_TOOL_LIMITS, createBusinessTool, deleteBusinessTool, findBusinessTool, listBusinessTools, type BusinessToolDoc } from '../../../src/businessTools';
import { ApiError, found } from '../../errors';
import { formatTimestamp } from '../../format';
import type { RouteDef } from '../../route';
import { workspaceGroup, type ConsoleDeps } from '../deps';
import { createToolBody, issuedToolRecord, toolList, toolNameParam, toolRecord } from './businessTools.schema';
import { allowPrivateUrls } from './webhookParts';

const ws = workspaceGroup();

/**
 * Business tools (docs/agents.md "Business tools"): HTTP endpoints of the business that the
 * workspace's agents call, each POST signed like a webhook. Declare, list, read, delete.
 */

export const TOOL_NOT_FOUND = 'Tool not found.';
const tool = ws.record('tool_name', TOOL_NOT_FOUND, toolNameParam);

export function toolView(doc: BusinessToolDoc): z.infer<typeof toolRecord> {
  return {
    name: doc.name,
    description: doc.description,
    parameters: JSON.parse(doc.parameters) as Record<string, unknown>,
    url: doc.url,
    timeout_ms: doc.timeout_ms,
    created_at: formatTimestamp(doc.created_at),
  };
}

export function businessToolRoutes(deps: ConsoleDeps): RouteDef[] {
  return [
    ws.post('createTool', 'tools', {
      summary: `Declare an HTTP tool the workspace's agents may call (at most ${BUSINESS_TOOL_LIMITS.maxToolsPerWorkspace}); its signing secret is shown this once.`,
      body: createToolBody,
      response: { status: 201, description: 'The tool plus `secret`.', schema: issuedToolRecord },
      errors: ['conflict'],
      handler: async (ctx, { body, tenantId }) => {
        const doc = await createBusinessTool(deps.db, tenantId, body, allowPrivateUrls(deps), deps.now());
        return { ...toolView(doc), secret: doc.secret };
      },
    }),
    ws.get('listTools', 'tools', {
      summary: "The workspace's tools by name; never their secrets.",
      response: { status: 200, description: '`{items, limit}`.', schema: toolList },
      handler: async (ctx, { tenantId }) => ({ items: (await listBusinessTools(deps.db, tenantId)).map(toolView), limit: BUSINESS_TOOL_LIMITS.maxToolsPerWorkspace }),
    }),
    tool.get('getTool', 'tools/{tool_name}', {
      summary: 'One tool; never its secret.',
      response: { status: 200, description: 'The tool.', schema: toolRecord },
      handler: async (ctx, { params, tenantId }) => toolView(found(await findBusinessTool(deps.db, tenantId, params.tool_name), TOOL_NOT_FOUND)),
    }),
    tool.delete('deleteTool', 'tools/{tool_name}', {
      summary: 'Delete a tool; agents no longer see it from their next turn.',
      response: { status: 200, description: '`{name, deleted: true}`.', schema: z.object({ name: z.string(), deleted: z.literal(true) }) },
      handler: async (ctx, { params, tenantId }) => {
        if (!(await deleteBusinessTool(deps.db, tenantId, params.tool_name))) throw new ApiError('not_found', TOOL_NOT_FOUND);
        return { name: params.tool_name, deleted: true };
      },
    }),
  ];
}
