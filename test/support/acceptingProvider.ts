import type { SendAttempt, SendRequest, WhatsAppProvider } from '../../src/messaging/whatsAppSender';

/**
 * A WhatsApp provider that accepts every send and keeps its request, answering message ids
 * `wamid.<prefix><n>` (n from 1): the use-case tests' stand-in for the provider. `cloud` for
 * code paths that differ by provider (statuses that adopt, grouped records), else `simulator`.
 */
export function acceptingProvider(name: WhatsAppProvider['name'], prefix: string): { provider: WhatsAppProvider; sent: SendRequest[] } {
  const sent: SendRequest[] = [];
  const provider: WhatsAppProvider = {
    name,
    send: async (request): Promise<SendAttempt> => {
      sent.push(request);
      return { ok: true, messageId: `wamid.${prefix}${sent.length}` };
    },
  };
  return { provider, sent };
}
