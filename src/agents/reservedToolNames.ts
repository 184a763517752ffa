/**
 * Every name a built-in offers to an agent on either channel: the chat and call tools of this
 * slice, knowledge search, and the line's own `end_call` and `transfer_to_human` (src/media).
 * A workspace may not declare an HTTP tool by one of these names (src/businessTools): the
 * toolbox lets the built-in win, so such a tool would never run. A unit test checks the list
 * against the tools the sources really offer.
 */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([
  'hand_over',
  'find_contact',
  'open_ticket',
  'read_dues',
  'send_payment_link',
  'schedule_call_back',
  'send_whatsapp_follow_up',
  'search_knowledge',
  'end_call',
  'transfer_to_human',
]);
