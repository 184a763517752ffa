import { z } from 'zod';
import { collections } from '../../../src/db/collections';
import type { PublicDeps } from '../deps';
import type { RouteDef } from '../route';

export const channelsResponse = z.object({
  message_channels: z.array(z.enum(['whatsapp'])),
  call_channels: z.array(z.enum(['voice'])),
  senders: z.array(
    z.object({
      sender_id: z.string(),
      channel: z.literal('whatsapp'),
      phone: z.string(),
      display_name: z.string(),
      is_default: z.boolean(),
    }),
  ),
  numbers: z.array(z.object({ number: z.string(), agent_id: z.string().nullable() })),
});

export function channelsRoutes(deps: Pick<PublicDeps, 'db'>): RouteDef[] {
  const c = collections(deps.db);
  return [
    {
      method: 'get',
      path: '/api/v1/channels',
      operationId: 'listChannels',
      summary: 'Sendable identities (senders) and callable channels.',
      auth: { scope: null },
      response: { status: 200, description: 'The workspace’s channels.', schema: channelsResponse },
      handler: async (ctx) => {
        const workspace = ctx.state.workspace!;
        const [senders, numbers] = await Promise.all([
          c.senders.find({ tenant_id: workspace._id, connected: true }).sort({ created_at: 1, _id: 1 }).toArray(),
          c.phoneNumbers.find({ tenant_id: workspace._id, active: true }).sort({ created_at: 1, _id: 1 }).toArray(),
        ]);
        const chat = workspace.plan.chat_channel;
        const voice = workspace.capabilities.voice_configured && workspace.plan.phone_numbers;
        ctx.body = {
          message_channels: chat ? ['whatsapp'] : [],
          call_channels: voice ? ['voice'] : [],
          senders: chat
            ? senders.map((s) => ({ sender_id: s._id, channel: s.channel, phone: s.phone, display_name: s.display_name, is_default: s.is_default }))
            : [],
          numbers: voice ? numbers.map((n) => ({ number: n.number, agent_id: n.agent_id })) : [],
        };
      },
    },
  ];
}
