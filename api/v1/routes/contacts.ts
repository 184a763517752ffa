import { z } from 'zod';
import { toE164 } from '../../../src/contacts/contactIdentity';
import {
  MissingIdentityError,
  UnusablePhoneError,
  findContactByEmail,
  contactIdByIdentity,
  findContactById,
  matchOrCreateContact,
  type ContactDoc,
} from '../../../src/contacts/contacts';
import { found } from '../../errors';
import { formatTimestamp } from '../../format';
import type { PublicDeps } from '../deps';
import { routeGroup, type RouteDef } from '../../route';
import { unusablePhone } from '../../shared/personFields';
import { contactRecord, lookupContactQuery, upsertContactBody, upsertResponse } from './contacts.schema';

const contacts = routeGroup({ auth: { scope: 'contacts:write' } });

export function contactView(c: ContactDoc): z.infer<typeof contactRecord> {
  return {
    contact_id: c._id,
    name: c.name,
    email: c.email,
    phone: c.phone,
    external_id: c.external_id,
    tags: c.tags,
    created_at: formatTimestamp(c.created_at),
    updated_at: formatTimestamp(c.updated_at),
  };
}

export function contactsRoutes(deps: Pick<PublicDeps, 'db' | 'now'>): RouteDef[] {
  const now = deps.now ?? (() => new Date());
  return [
    contacts.post('upsertContact', '/api/v1/contacts', {
      summary: 'Create a contact, or match the existing one by email, then phone (filling only its blank fields).',
      body: upsertContactBody,
      response: { status: 201, description: 'The contact, created or matched.', schema: upsertResponse },
      errors: ['conflict'],
      handler: async (ctx, { body }) => {
        const workspace = ctx.state.workspace!;
        try {
          const match = await matchOrCreateContact(deps.db, workspace, body, now());
          return { ...contactView(match.contact), created: match.created, matched_on: match.matchedOn };
        } catch (err) {
          // A phone is a field of the request: its refusal is a validation failure at its place.
          // Refusals (no identity, an identity conflict) go up to the error handler.
          if (err instanceof UnusablePhoneError) throw unusablePhone(['body', 'phone'], workspace.country);
          throw err;
        }
      },
    }),
    contacts.get('lookupContact', '/api/v1/contacts/lookup', {
      summary: 'Find a contact by email, else by phone.',
      query: lookupContactQuery,
      response: { status: 200, description: 'The contact.', schema: contactRecord },
      errors: ['not_found'],
      handler: async (ctx, { query }) => {
        const workspace = ctx.state.workspace!;
        const byEmail = query.email?.trim() || null;
        const byPhone = query.phone?.trim() || null;
        if (!byEmail && !byPhone) throw new MissingIdentityError();
        let phone: string | null = null;
        if (byPhone) {
          phone = toE164(byPhone, workspace.country);
          if (!phone) throw unusablePhone(['query', 'phone'], workspace.country);
        }
        let contact = byEmail ? await findContactByEmail(deps.db, workspace._id, byEmail) : null;
        if (!contact && phone) {
          const id = await contactIdByIdentity(deps.db, workspace._id, 'phone', phone);
          contact = id ? await findContactById(deps.db, workspace._id, id) : null;
        }
        return contactView(found(contact, 'Contact not found.'));
      },
    }),
  ];
}
