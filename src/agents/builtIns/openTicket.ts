import { z } from 'zod';
import { createOrFindTicket, TICKET_PRIORITIES } from '../../tickets';
import type { BuiltInToolDefinition } from './builtInTool';
import { failed } from './builtInTool';

const args = z
  .object({
    subject: z.string().trim().min(1).max(240),
    description: z.string().trim().min(1).max(8_000),
    priority: z.enum(TICKET_PRIORITIES).default('normal'),
  })
  .strict();

/**
 * A ticket for the business's team, opened through POST /tickets's use case. Its id is named
 * by the tool run's key (as POST /tickets names one by its body's bytes), so a retried run
 * finds the ticket it opened instead of opening a second.
 */
export const openTicket: BuiltInToolDefinition<z.infer<typeof args>> = {
  name: 'open_ticket',
  description: "Open a support ticket for the business's team when the person needs something you cannot do now. Say the ticket's reference to them.",
  parameters: {
    type: 'object',
    properties: {
      subject: { type: 'string', description: 'A short summary, up to 240 characters.' },
      description: { type: 'string', description: 'What the person needs, in full.' },
      priority: { type: 'string', enum: [...TICKET_PRIORITIES], description: 'normal unless it is urgent for them.' },
    },
    required: ['subject', 'description'],
    additionalProperties: false,
  },
  args,
  kind: 'tool',
  async run(deps, context, given) {
    if (!context.workspace.capabilities.tickets) {
      return failed('Tickets are not available for this business.', { kind: 'tool', text: 'open_ticket: tickets are not available on this deployment' });
    }
    const { ticket, created } = await createOrFindTicket(
      { db: deps.db, events: deps.events, triage: deps.triage, logger: deps.logger },
      {
        workspace: context.workspace,
        by: { agentId: context.agentId, source: { channel: context.channel, thread_id: context.conversationId ?? context.callId ?? null, message_id: null } },
        rawBody: Buffer.from(`agent-tool\u0000${context.runKey}`),
        input: {
          subject: given.subject,
          description: given.description,
          priority: given.priority,
          requester: { name: null, email: null, phone: context.customerPhone ?? null, external_id: null },
          tags: ['agent'],
        },
      },
      () => context.now,
    );
    return {
      ok: true,
      output: { ticket_id: ticket._id, reference: ticket.public_ref, status: ticket.status, priority: ticket.priority },
      trail: { kind: 'tool', text: `Opened ticket ${ticket.public_ref}: ${ticket.subject}`, detail: { ticket_id: ticket._id, created } },
    };
  },
};
