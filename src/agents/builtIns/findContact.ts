import { z } from 'zod';
import { findContactByEmail, findContactByPhone, type ContactDoc } from '../../contacts';
import type { BuiltInToolDefinition } from './builtInTool';

const args = z.object({ phone: z.string().max(32).optional(), email: z.string().max(200).optional() }).strict();

/** Who the person is in the workspace's contacts: by the email or phone the agent heard, else the number they are on. */
export const findContact: BuiltInToolDefinition<z.infer<typeof args>> = {
  name: 'find_contact',
  description:
    "Find the person in the business's contacts. Without arguments it looks up the number the person is calling or writing from; give `email` or `phone` when they tell you another one.",
  parameters: {
    type: 'object',
    properties: {
      phone: { type: 'string', description: 'A phone number, international (+…) or of the business’s country.' },
      email: { type: 'string', description: 'An email address.' },
    },
    additionalProperties: false,
  },
  args,
  kind: 'lookup',
  async run(deps, context, given) {
    const by = given.email ? given.email : (given.phone ?? context.customerPhone);
    if (!by) return { ok: false, output: { error: 'Tell me a phone number or an email to look up.' }, trail: { kind: 'lookup', text: 'find_contact: nothing to look up by' } };
    const contact = given.email
      ? await findContactByEmail(deps.db, context.tenantId, given.email)
      : await findContactByPhone(deps.db, context.tenantId, by, context.workspace.country);
    if (!contact) return { ok: true, output: { found: false }, trail: { kind: 'lookup', text: `Looked up the contact for ${by}: none found` } };
    // Found by what the person said rather than the number they are on: the contact's other
    // email or phone is not read out to whoever is asking (they may not be that person).
    const ownNumber = !given.email && contact.phone !== null && contact.phone === context.customerPhone;
    return {
      ok: true,
      output: { found: true, contact: contactOutput(contact, ownNumber ? 'all' : given.email ? 'email' : 'phone') },
      trail: { kind: 'lookup', text: `Looked up the contact for ${by}: ${contact.name ?? 'no name'} (${contact._id})`, detail: { contact_id: contact._id } },
    };
  },
};

function contactOutput(contact: ContactDoc, shown: 'all' | 'email' | 'phone') {
  return {
    id: contact._id,
    name: contact.name,
    email: shown === 'phone' ? undefined : contact.email,
    phone: shown === 'email' ? undefined : contact.phone,
    external_id: contact.external_id,
    tags: contact.tags,
  };
}
