import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import { agentBuiltInTools, type AgentToolSource } from '../agents';
import { builtInToolSource } from '../agents/builtIns';
import { businessToolSource } from '../businessTools';
import { webhookPrivateUrlsAllowed, type Config } from '../config';
import type { PaymentLinkProvider } from '../dues';
import type { EventPublisher } from '../events';
import { knowledgeToolSource } from '../knowledge';
import type { WhatsAppProvider } from '../messaging';
import type { Logger } from '../observability/logger';
import { createPaymentLinkProvider } from '../providers/payments';
import { scriptingFromConsole } from '../providers/payments/simulatorScript';
import { createWhatsAppProvider } from '../providers/whatsapp';
import { createSimulatedTriage } from '../tickets';

/** What the tool sources act through: the process's database, Temporal client and providers. */
export interface AgentToolDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
  events: EventPublisher;
  whatsapp: WhatsAppProvider;
  payments: PaymentLinkProvider;
  deploymentChannels: readonly string[];
  logger: Logger;
  /** Whether a business tool may be on a private address (the webhook rule, webhookPrivateUrlsAllowed). */
  allowPrivateUrls: boolean;
}

/**
 * Where an agent's tools come from, in order: the first source to name a tool keeps it, so the
 * built-ins come first and a workspace's HTTP tool cannot shadow one (their names are refused
 * when a tool is declared, too). Called once per process: the knowledge source keeps that
 * process's search indexes.
 */
export function agentToolSources(deps: AgentToolDeps): AgentToolSource[] {
  return [
    // hand_over: the agent asks for a person (src/agents/handOverTool.ts).
    agentBuiltInTools,
    // find_contact, open_ticket, read_dues, send_payment_link, schedule_call_back, send_whatsapp_follow_up.
    builtInToolSource({ ...deps, triage: createSimulatedTriage() }),
    // search_knowledge over the workspace's documents.
    knowledgeToolSource({ db: deps.db }),
    // The workspace's declared HTTP tools, signed like webhooks.
    businessToolSource({ db: deps.db, allowPrivateUrls: deps.allowPrivateUrls }),
  ];
}

/**
 * The sources with the deployment's own providers, for a process that has none of its own (the
 * media bridge): its WhatsApp provider, its payment links, as the worker's activities use them.
 */
export function agentToolSourcesFromConfig(deps: { db: Db; temporal: Client; config: Config; events: EventPublisher; logger: Logger }): AgentToolSource[] {
  const { db, temporal, config, events, logger } = deps;
  return agentToolSources({
    db,
    temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    events,
    whatsapp: createWhatsAppProvider(config, {
      db,
      events,
      onStatusError: (err, messageId) => logger.warn({ err, messageId }, 'simulated WhatsApp status not recorded; the worker’s sweep retries'),
    }),
    payments: createPaymentLinkProvider(config, scriptingFromConsole(db, temporal, config.TEMPORAL_TASK_QUEUE)),
    deploymentChannels: config.DEPLOYMENT_CHANNELS,
    logger,
    allowPrivateUrls: webhookPrivateUrlsAllowed(config),
  });
}
