import { formatShortInZone } from '../clock';

/** A time as the workspace (or the campaign) reads it: `Thu 26 Nov, 10:00` (clock.ts). */
export const zoned = (iso: string, timeZone: string): string => formatShortInZone(iso, timeZone);

/**
 * A campaign's status as an operator reads it: a launched campaign whose next send waits for its
 * start or its window (`waiting_until`, from the server) reads "waiting" with when it starts and
 * the zone named, not a green "running" (issue 35 §6); the stored status stays in `data-status`.
 */
export function CampaignStatus({ status, waitingUntil, timeZone }: { status: string; waitingUntil: string | null | undefined; timeZone: string }) {
  if (waitingUntil) {
    return (
      <span data-testid="campaign-status" data-status={status} data-shown="waiting">
        <span class="status status-waiting" title={`Stored status: ${status}`}>
          waiting
        </span>{' '}
        <span class="muted">
          for its {status === 'scheduled' ? 'start' : 'window'} — starts {zoned(waitingUntil, timeZone)} ({timeZone})
        </span>
      </span>
    );
  }
  return (
    <span class={`status status-${status}`} data-testid="campaign-status" data-status={status} data-shown={status}>
      {status}
    </span>
  );
}
