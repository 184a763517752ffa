import { z } from 'zod';
import { isCountry, isTimeZone } from '../../../src/workspaces/workspaces';
import { workspaceParams } from '../deps';
import { workspacePlan } from '../views';

/** Request shapes of the console's workspaces routes (validated by the route definition, described in its OpenAPI document). */

const country = z
  .string()
  .transform((c) => c.toUpperCase())
  .refine(isCountry, 'expected an ISO 3166 alpha-2 country code, e.g. IN');

const timezone = z.string().max(64).refine(isTimeZone, 'expected an IANA time zone, e.g. Asia/Kolkata');

export const createWorkspaceBody = z.object({
  name: z.string().trim().min(1).max(140),
  country: country.default('IN'),
  timezone: timezone.optional(),
  demo: z.boolean().default(false),
});

export const updateWorkspaceBody = z
  .object({
    name: z.string().trim().min(1).max(140),
    country,
    timezone,
    suspended: z.boolean(),
    plan: workspacePlan.partial().strict(),
    calling_country_codes: z.array(z.string().regex(/^\d{1,3}$/, 'expected a calling code, digits only')).max(250),
    installed_apps: z.array(z.enum(['dues'])),
    capabilities: z.object({ voice_configured: z.boolean(), tickets: z.boolean(), conversations: z.boolean() }).partial().strict(),
  })
  .partial()
  .strict();

export const workspaceIdParams = workspaceParams({});
