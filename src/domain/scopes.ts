/** Every scope a key may carry (api-core §5). The appointments scopes gate no route yet. */
export const SCOPES = [
  'messages:send',
  'calls:write',
  'conversations:read',
  'contacts:write',
  'tickets:write',
  'agents:read',
  'campaigns:read',
  'campaigns:write',
  'appointments:read',
  'appointments:write',
] as const;

export type Scope = (typeof SCOPES)[number];
