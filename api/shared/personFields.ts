import { z } from 'zod';
import { isPlausibleEmail, normaliseEmail, toE164 } from '../../src/contacts/contactIdentity';
import { validationError, type FieldError } from '../validation';
import type { ApiError } from '../errors';

/**
 * The email and phone fields of every request that names a person (a contact, a ticket's
 * requester), checked by the one rule in src/contacts/contactIdentity.ts. A refusal is a
 * validation failure at the field (api-core §7 rule 1), the same on every route.
 */

/** An email address, or blank (which counts as not sent). */
export const emailField = (max: number) =>
  z
    .string()
    .max(max)
    .refine((value) => value.trim() === '' || isPlausibleEmail(normaliseEmail(value)), 'expected an email address, e.g. name@example.com');

/** The phone's refusal: its country is the workspace's, so it is checked in the handler, not the schema. */
export function unusablePhone(loc: FieldError['loc'], country: string): ApiError {
  return validationError([
    {
      loc,
      msg: `That phone number isn't usable: give it with its country code (+…), or as a number of the workspace's country (${country}).`,
      type: 'phone_invalid',
    },
  ]);
}

/** Throws the phone's refusal unless it is blank or a usable number of its country. */
export function checkPhone(phone: string | null | undefined, loc: FieldError['loc'], country: string): void {
  if (phone?.trim() && !toE164(phone, country)) throw unusablePhone(loc, country);
}
