import type { Db } from 'mongodb';
import { z } from 'zod';
import { COLLECTION_MODES } from './store';
import { replaceUpserting } from '../db/upsert';

/**
 * The app's console settings per workspace (the contract leaves reminders, templates and
 * collection to the console): when the chase speaks, which template it sends, how the
 * customer pays, and the receipt. One document per workspace (`_id` = workspace id); a
 * workspace that never saved any gets the defaults.
 */

/** What a template placeholder can be filled with, in the order the settings list them. */
export const DUE_VARIABLES = ['name', 'amount', 'due_date', 'period', 'plan_name', 'pay_to', 'due_id'] as const;
export type DueVariable = (typeof DUE_VARIABLES)[number];

const templateSettings = (name: string, variables: DueVariable[], buttonVariables: DueVariable[]) =>
  z.object({
    name: z.string().min(1).max(512).default(name),
    language: z.string().min(1).max(16).nullable().default(null),
    /** The body's placeholders, in order. */
    variables: z.array(z.enum(DUE_VARIABLES)).max(20).default(variables),
    /** The dynamic URL button's placeholders, in order (e.g. the due id in a pay link). */
    button_variables: z.array(z.enum(DUE_VARIABLES)).max(20).default(buttonVariables),
  });

export const duesSettingsSchema = z.object({
  /** The reminder goes this many days before the due date (0: on the date). */
  reminder_offset_days: z.number().int().min(0).max(30).default(3),
  /** Days from the reminder to follow-up 1, and from follow-up 1 to follow-up 2. */
  followup_interval_days: z.tuple([z.number().int().min(1).max(60), z.number().int().min(1).max(60)]).default([3, 4]),
  /** Days after follow-up 2 before the chase ends `declined`. */
  decline_after_days: z.number().int().min(1).max(60).default(3),
  /** Local hour each step is planned at; a step outside 09:00–21:00 waits for the window. */
  send_hour: z.number().int().min(0).max(23).default(10),
  // The demo workspace's `payment_due` template: name, amount, due date, and a pay button keyed by the due.
  template: templateSettings('payment_due', ['name', 'amount', 'due_date'], ['due_id']).default({
    name: 'payment_due',
    language: null,
    variables: ['name', 'amount', 'due_date'],
    button_variables: ['due_id'],
  }),
  collection: z
    .object({
      /** `manual_upi`: `pay_to` is the UPI id or QR; `payment_link`: a link per due from PAYMENT_LINK_PROVIDER. */
      mode: z.enum(COLLECTION_MODES).default('manual_upi'),
      /** manual_upi: the UPI id (or QR link) the reminder names as `pay_to`. */
      upi_id: z.string().max(100).nullable().default(null),
      qr_url: z.string().max(500).nullable().default(null),
    })
    .default({ mode: 'manual_upi', upi_id: null, qr_url: null }),
  receipt: z
    .object({
      enabled: z.boolean().default(false),
      template: templateSettings('payment_receipt', ['name', 'amount', 'period'], []).default({
        name: 'payment_receipt',
        language: null,
        variables: ['name', 'amount', 'period'],
        button_variables: [],
      }),
    })
    .default({ enabled: false, template: { name: 'payment_receipt', language: null, variables: ['name', 'amount', 'period'], button_variables: [] } }),
});

export type DuesSettings = z.output<typeof duesSettingsSchema>;

interface DuesSettingsDoc extends DuesSettings {
  _id: string;
  updated_at: Date;
}

export const DEFAULT_DUES_SETTINGS: DuesSettings = duesSettingsSchema.parse({});

const settingsCollection = (db: Db) => db.collection<DuesSettingsDoc>('dues_settings');

export async function readDuesSettings(db: Db, tenantId: string): Promise<DuesSettings> {
  const doc = await settingsCollection(db).findOne({ _id: tenantId });
  if (!doc) return DEFAULT_DUES_SETTINGS;
  // Parsing drops `_id` and `updated_at`, and fills keys added since the document was saved.
  return duesSettingsSchema.parse(doc);
}

/** Replaces the workspace's settings whole (PUT). */
export async function writeDuesSettings(db: Db, tenantId: string, settings: DuesSettings, now: Date): Promise<DuesSettings> {
  await replaceUpserting(settingsCollection(db), { _id: tenantId }, { ...settings, updated_at: now });
  return settings;
}
