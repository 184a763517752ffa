/**
 * Keeps a lease held while its work runs: calls `renew` every `everyMs`, one call at a time,
 * until `stop`, or until `renew` answers false (the lease was taken over: renewing further
 * would fight the new holder). `stop` waits for a renewal under way, so the holder's next
 * write to the leased document is its last: on FerretDB 1.x an update writes the whole
 * document back, and a renewal landing after the holder's final write could undo it.
 */
export interface LeaseRenewal {
  stop(): Promise<void>;
}

export function keepRenewing(
  renew: () => Promise<boolean>,
  everyMs: number,
  report: (problem: { lost: true } | { lost: false; err: unknown }) => void,
): LeaseRenewal {
  let renewing: Promise<void> | null = null;
  const timer = setInterval(() => {
    if (renewing) return;
    renewing = renew()
      .then((held) => {
        if (held) return;
        clearInterval(timer);
        report({ lost: true });
      })
      .catch((err: unknown) => report({ lost: false, err }))
      .finally(() => (renewing = null));
  }, everyMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await renewing;
    },
  };
}
