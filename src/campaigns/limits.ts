/**
 * Every campaign limit the contract states (campaigns-tickets-dues §4, §8), in one place:
 * the request schemas, the evaluate computation and the launch checks all read them here.
 */
export const CAMPAIGN_LIMITS = {
  nameMaxChars: 140,
  purposeMaxChars: 500,
  scriptMaxChars: 3_000,
  consentNoteMaxChars: 400,
  templateNameMaxChars: 512,
  templateLanguageMaxChars: 16,
  templateVariables: 20,
  /** Audience `contact_ids` per request, and the per-campaign recipient ceiling (`audience_too_large`). */
  audienceIds: 50_000,
  recipientCeiling: 50_000,
  segmentTags: 20,
  timezoneMaxChars: 64,
  throttleMin: 1,
  throttleMax: 600,
  defaultThrottlePerMinute: 60,
  /** Messages: 09:00 floor, 21:00 ceiling, in the campaign's zone. */
  sendWindowFloorHour: 9,
  sendWindowCeilingHour: 21,
  /** Calls are held to 10:00 to 19:00 whatever the schedule says. */
  callWindowFloorHour: 10,
  callWindowCeilingHour: 19,
  listDefaultLimit: 25,
  listMaxLimit: 100,
  /** GET …/recipients `limit` (not in the contract: docs/decisions.md). */
  recipientsDefaultLimit: 50,
  recipientsMaxLimit: 100,
  invalidRows: 200,
  samples: 5,
} as const;
