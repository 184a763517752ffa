/** How often the fake caller listens for the agent's audio. */
const POLL_MS = 50;
/** The most quiet one poll may count: a poll that runs later than this was held up, not listening. */
const MOST_QUIET_PER_POLL_MS = 2 * POLL_MS;

/** What the fake caller's phone has heard so far: frames received, and when the last of them ends playing (epoch ms). */
export interface HeardSoFar {
  frames: number;
  playedUntil: number;
}

const now = () => performance.timeOrigin + performance.now();

/**
 * Resolves once the agent has sent audio and then nothing for `quietMs` (it finished its turn),
 * for the line tests' fake callers (Twilio's and Plivo's stream clients).
 *
 * Quiet is counted by this process's polls, each adding at most MOST_QUIET_PER_POLL_MS. The
 * fake caller, the media bridge and the fake realtime model run in one process: a stall of it
 * (a loaded machine) holds back the agent's next frames while the clock runs on, and a caller
 * counting quiet by the clock took that for the end of the turn and talked over the agent,
 * whose turn the bridge then cut to what had been heard (plivoLine's greeting went missing so).
 * Counted by polls, a stall adds one poll's worth, and the frames it held back arrive first.
 */
export async function untilAgentQuiet(heard: () => HeardSoFar, quietMs = 600, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const heardBefore = heard().frames;
  let seen = heardBefore;
  let quiet = 0;
  let polledAt = now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const at = now();
    const sincePoll = at - polledAt;
    polledAt = at;
    const { frames, playedUntil } = heard();
    if (frames !== seen || at < playedUntil) {
      seen = frames;
      quiet = 0;
    } else {
      quiet += Math.min(sincePoll, at - playedUntil, MOST_QUIET_PER_POLL_MS);
      if (frames > heardBefore && quiet >= quietMs) return;
    }
    if (Date.now() > deadline) throw new Error(`the agent did not finish speaking within ${timeoutMs} ms (${frames} frames heard)`);
  }
}
