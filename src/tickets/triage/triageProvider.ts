import type { TicketPriority } from '../ticketRules';

/** What triage reads: the ticket as the caller wrote it. */
export interface TriageInput {
  subject: string;
  description: string;
  priority: TicketPriority;
  tags: string[];
}

/** Advice attached to the ticket as notes; it never changes the caller's fields. */
export interface TriageSuggestion {
  category: string | null;
  priority: TicketPriority | null;
  notes: string;
}

/**
 * AI triage of a new ticket. The default is the deterministic simulator
 * (`simulatedTriage.ts`); a model-backed provider implements the same call and must stop
 * work when `signal` aborts (the create request waits for it only briefly).
 */
export interface TriageProvider {
  readonly name: string;
  triage(input: TriageInput, signal: AbortSignal): Promise<TriageSuggestion>;
}
