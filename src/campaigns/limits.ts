import { CALL_BOUNDS, MESSAGE_BOUNDS } from '../domain/sendWindow';

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
  /** The send windows' bounds, owned by src/domain/sendWindow.ts. */
  sendWindowFloorHour: MESSAGE_BOUNDS.floorHour,
  sendWindowCeilingHour: MESSAGE_BOUNDS.ceilingHour,
  callWindowFloorHour: CALL_BOUNDS.floorHour,
  callWindowCeilingHour: CALL_BOUNDS.ceilingHour,
  listDefaultLimit: 25,
  listMaxLimit: 100,
  /** GET …/recipients `limit` (not in the contract: docs/decisions/README.md). */
  recipientsDefaultLimit: 50,
  recipientsMaxLimit: 100,
  invalidRows: 200,
  samples: 5,
} as const;
