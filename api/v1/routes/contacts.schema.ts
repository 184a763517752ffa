import { z } from 'zod';
import { emailField } from '../../shared/personFields';

/** Request and response shapes of the contact routes (campaigns-tickets-dues §5). */

export const upsertContactBody = z.object({
  name: z.string().max(140).nullable().default(null),
  email: emailField(200).nullable().default(null),
  phone: z.string().max(32).nullable().default(null),
  external_id: z.string().max(200).nullable().default(null),
  tags: z.array(z.string()).max(20).default([]),
});

export const lookupContactQuery = z.object({
  email: z.string().max(200).optional(),
  phone: z.string().max(32).optional(),
});

export const contactRecord = z.object({
  contact_id: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  external_id: z.string().nullable(),
  tags: z.array(z.string()),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});

export const upsertResponse = contactRecord.extend({
  created: z.boolean(),
  matched_on: z.enum(['email', 'phone']).nullable(),
});
