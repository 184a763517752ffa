import type { Db } from 'mongodb';
import { createEventPublisher } from '../../../src/events/publisher';
import { sendWhatsAppMessage } from '../../../src/messaging/sendMessage';
import type { SendAttempt, WhatsAppProvider } from '../../../src/providers/whatsapp/provider';
import { openTestDb, testConfig } from '../../support/env';
import { createTestWorkspace, type TestWorkspace } from '../../support/workspaces';

/** The send core on its own, with a provider whose follow-up fails after it accepted. */
describe('sendWhatsAppMessage', () => {
  let db: Db;
  let drop: () => Promise<void>;
  let ws: TestWorkspace;

  beforeAll(async () => {
    ({ db, drop } = await openTestDb(testConfig()));
    ws = await createTestWorkspace(db);
  });
  afterAll(async () => {
    await drop();
  });

  it('answers the accepted message even when the provider’s follow-up fails, and logs it', async () => {
    const provider: WhatsAppProvider = {
      name: 'simulator',
      send: async (): Promise<SendAttempt> => ({ ok: true, messageId: 'wamid.ACCEPTED' }),
      accepted: async () => {
        throw new Error('temporal unreachable');
      },
    };
    const warnings: unknown[] = [];
    const result = await sendWhatsAppMessage(
      {
        db,
        events: createEventPublisher(db, { dispatch: async () => undefined }),
        provider,
        deploymentChannels: ['whatsapp'],
        now: () => new Date(),
        logger: { warn: (...args: unknown[]) => warnings.push(args) } as never,
      },
      { tenantId: ws.workspaceId, to: '919800000555', template: { name: 'welcome' }, intentKey: `${ws.workspaceId}|test|accepted` },
    );
    expect(result).toMatchObject({ message_id: 'wamid.ACCEPTED', channel: 'whatsapp', to: '+919800000555', status: 'sent' });
    expect(warnings).toHaveLength(1);
  });
});
