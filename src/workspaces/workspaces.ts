import { getCountryCallingCode, isSupportedCountry, type CountryCode } from 'libphonenumber-js';
import type { Db } from 'mongodb';
import { collections, type WorkspaceDoc } from '../db/collections';
import { newId } from '../domain/ids';

export function isCountry(code: string): code is CountryCode {
  return isSupportedCountry(code);
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** A new, non-demo workspace: modest allowances, calling enabled for its own country. */
export function newWorkspace(input: { name: string; country: CountryCode; timezone?: string }, now: Date): WorkspaceDoc {
  return {
    _id: newId('ws', now),
    name: input.name,
    country: input.country,
    timezone: input.timezone ?? (input.country === 'IN' ? 'Asia/Kolkata' : 'UTC'),
    suspended: false,
    plan: {
      conversations_included: 1_000,
      conversations_used: 0,
      prepaid_credits: 0,
      voice_minutes_included: 100,
      voice_minutes_used: 0,
      voice_credits: 0,
      chat_channel: true,
      phone_numbers: true,
    },
    calling_country_codes: [getCountryCallingCode(input.country)],
    installed_apps: [],
    capabilities: { voice_configured: true, tickets: true, conversations: true },
    demo: false,
    created_at: now,
    updated_at: now,
  };
}

export async function findWorkspace(db: Db, id: string): Promise<WorkspaceDoc | null> {
  return collections(db).workspaces.findOne({ _id: id });
}

/** Every workspace, newest first, at most `limit`. */
export async function newestWorkspaces(db: Db, limit: number): Promise<WorkspaceDoc[]> {
  return collections(db).workspaces.find({}).sort({ created_at: -1 }).limit(limit).toArray();
}
