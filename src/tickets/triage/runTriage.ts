import type { TriageInput, TriageProvider, TriageSuggestion } from './triageProvider';

/** How long a create request waits for triage before answering without its notes. */
export const TRIAGE_TIMEOUT_MS = 2_000;

export type TriageOutcome = { ok: true; suggestion: TriageSuggestion } | { ok: false; error: string };

/** Runs the provider with a deadline; a failure or a timeout is an outcome, never a throw. */
export async function runTriage(provider: TriageProvider, input: TriageInput, timeoutMs = TRIAGE_TIMEOUT_MS): Promise<TriageOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`triage took longer than ${timeoutMs} ms`);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return { ok: true, suggestion: await Promise.race([provider.triage(input, controller.signal), deadline]) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}
