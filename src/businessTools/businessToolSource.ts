import type { Db } from 'mongodb';
import type { AgentTool, AgentToolSource } from '../agents';
import { callBusinessTool, type CallToolOptions } from './callTool';
import { toolParameters } from './parametersSchema';
import { listBusinessTools, type BusinessToolDoc } from './store';

/**
 * The workspace's HTTP tools as agent tools (src/agents/agentTool.ts): each declared tool is
 * offered with its own name, description and parameters. Read afresh for every listing (one
 * scan of at most `maxToolsPerWorkspace` small records); a chat worker keeps an agent's list
 * for its conversations' turns up to AGENT_SETUP_FRESH_MS (src/agents/agentSetups.ts), so a
 * tool declared or deleted in the console is offered, or not, from that many seconds on.
 */

export interface BusinessToolDeps {
  db: Db;
  /** WEBHOOK_ALLOW_PRIVATE_URLS (src/config.ts `webhookPrivateUrlsAllowed`): tools follow the webhook policy. */
  allowPrivateUrls: boolean;
  clock?: CallToolOptions['clock'];
}

function asAgentTool(doc: BusinessToolDoc, deps: BusinessToolDeps): AgentTool {
  const parameters = toolParameters(JSON.parse(doc.parameters) as Record<string, unknown>);
  return {
    name: doc.name,
    description: doc.description,
    parameters,
    run: (context, args, signal) => callBusinessTool(doc, parameters, context, args, { allowPrivate: deps.allowPrivateUrls, signal, clock: deps.clock }),
  };
}

/** Add `businessToolSource({ db, allowPrivateUrls: webhookPrivateUrlsAllowed(config) })` to the roots' sources. */
export function businessToolSource(deps: BusinessToolDeps): AgentToolSource {
  return async ({ tenantId }) => (await listBusinessTools(deps.db, tenantId)).map((doc) => asAgentTool(doc, deps));
}
