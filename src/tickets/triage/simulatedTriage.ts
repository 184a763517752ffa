import type { TicketPriority } from '../ticketRules';
import type { TriageInput, TriageProvider, TriageSuggestion } from './triageProvider';

/** Keywords per category, first table row that matches wins. */
const CATEGORIES: [category: string, words: string[]][] = [
  ['billing', ['invoice', 'refund', 'payment', 'charged', 'charge', 'billing', 'bill', 'subscription']],
  ['account', ['login', 'log in', 'password', 'account', 'locked', 'sign in', 'otp']],
  ['orders', ['order', 'delivery', 'shipping', 'shipment', 'package', 'parcel', 'return']],
  ['technical', ['error', 'bug', 'crash', 'broken', 'not working', "doesn't work", 'outage', 'down']],
];

const URGENT_WORDS = ['urgent', 'asap', 'immediately', 'outage', 'emergency', 'down for everyone'];
const HIGH_WORDS = ['cannot', "can't", 'unable', 'blocked', 'charged twice', 'refund'];

/** Markers that make the simulator fail or hang, so the fallback can be exercised end to end. */
export const SIMULATE_TRIAGE_ERROR = '[simulate:triage-error]';
export const SIMULATE_TRIAGE_TIMEOUT = '[simulate:triage-timeout]';

function found(text: string, words: string[]): string[] {
  return words.filter((word) => text.includes(word));
}

/**
 * The default triage provider: deterministic keyword rules over the subject and
 * description, so tests and people see the same notes for the same ticket.
 */
export function createSimulatedTriage(): TriageProvider {
  return {
    name: 'simulated',
    async triage(input: TriageInput, signal: AbortSignal): Promise<TriageSuggestion> {
      const text = `${input.subject}\n${input.description}`.toLowerCase();
      if (text.includes(SIMULATE_TRIAGE_ERROR)) throw new Error('simulated triage failure');
      if (text.includes(SIMULATE_TRIAGE_TIMEOUT)) {
        await new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      }
      const match = CATEGORIES.map(([category, words]) => ({ category, hits: found(text, words) })).find((c) => c.hits.length > 0);
      const urgent = found(text, URGENT_WORDS);
      const high = found(text, HIGH_WORDS);
      const priority: TicketPriority | null = urgent.length ? 'urgent' : high.length ? 'high' : null;
      const reasons = [
        match ? `category ${match.category} (mentions ${match.hits.map((w) => `"${w}"`).join(', ')})` : 'no category keywords',
        priority ? `priority ${priority} (mentions ${(urgent.length ? urgent : high).map((w) => `"${w}"`).join(', ')})` : 'no priority keywords',
      ];
      return {
        category: match?.category ?? null,
        priority,
        notes: `Suggested ${reasons.join('; ')}.`,
      };
    },
  };
}
