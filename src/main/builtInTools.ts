import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../config';
import { builtInToolSource } from '../agents/builtIns';
import type { AgentToolSource } from '../agents';
import type { EventPublisher } from '../events';
import type { WhatsAppProvider } from '../messaging';
import type { Logger } from '../observability/logger';
import { createPaymentLinkProvider } from '../providers/payments';
import { scriptingFromConsole } from '../providers/payments/simulatorScript';
import { createWhatsAppProvider } from '../providers/whatsapp';
import { createSimulatedTriage } from '../tickets';

/**
 * The built-in agent tools with a process's providers: the deployment's WhatsApp provider (the
 * process's own when it has one, as the worker does), its payment links, the simulated ticket
 * triage POST /tickets uses. Every process that runs an agent (the worker's chat turns, the
 * media bridge's calls) builds its source here, so both channels act through the same providers.
 */
export function builtInToolsFor(deps: { db: Db; temporal: Client; config: Config; events: EventPublisher; logger: Logger; whatsapp?: WhatsAppProvider }): AgentToolSource {
  const { db, temporal, config, events, logger } = deps;
  return builtInToolSource({
    db,
    events,
    temporal,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    whatsapp:
      deps.whatsapp ??
      createWhatsAppProvider(config, {
        db,
        events,
        onStatusError: (err, messageId) => logger.warn({ err, messageId }, 'simulated WhatsApp status not recorded; the worker’s sweep retries'),
      }),
    deploymentChannels: config.DEPLOYMENT_CHANNELS,
    payments: createPaymentLinkProvider(config, scriptingFromConsole(db, temporal, config.TEMPORAL_TASK_QUEUE)),
    triage: createSimulatedTriage(),
    logger,
  });
}
