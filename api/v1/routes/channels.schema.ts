import { z } from 'zod';

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
