/**
 * The call benchmark's targets (issue 13's, raised by issue 28 §2), in one place: `bench:calls`
 * prints its verdicts against them and `npm run bench`'s summary reads the same numbers.
 */
export const CALL_TARGETS = {
  /** Calls that stay up, placed per second across workspaces. */
  holdPlacementsPerSecond: 30,
  /** Closed loop: each client places a call and polls it to its result (issue 28: 15, was 5). */
  sustainedCallsPerSecond: 15,
  /** Hang-up → result decided, p99: in the hang-up phase and for the probes under the sustained load (issue 28: 1 s, was 2). */
  readyP99Ms: 1_000,
  /** Issue 36 §3: a whole call's CPU (placed, answered, talked, read, polled by its client): API, worker, FerretDB and Temporal, in the sustained phase. */
  cpuPerCallMs: 50,
  /** Issue 36 §3: the call workflow's history events (p50 of the sampled calls; TEMPORAL_MINIMUM.call is the floor). */
  historyEventsPerCall: 20,
} as const;

/** Issue 28 §3's targets for the WhatsApp campaign benchmark (phase 1: 10 campaigns at 600 a minute). */
export const CAMPAIGN_TARGETS = {
  /** Aggregate sends per second as a share of the throttles' summed cap. */
  shareOfCap: 0.95,
  /** CPU per send, every process of the benchmark summed (API, worker, Temporal, FerretDB, the bench's own polling). */
  cpuMsPerSend: 5,
} as const;

/**
 * Issue 28's targets for the webhook benchmark: `bench:webhooks` prints each figure beside
 * its target and `npm run bench`'s summary reads the same numbers.
 */
export const WEBHOOK_TARGETS = {
  /** A burst of 500 events to one endpoint. */
  burstDeliveriesPerSecond: 500,
  /** Creation (the producer's publish call) → first attempt arriving, p99, in every paced phase. */
  firstAttemptP99Ms: 250,
  /** The paced phases: one endpoint at each rate, then MULTI_ENDPOINTS endpoints sharing MULTI_RATE. */
  pacedRates: [50, 200],
  multiEndpoints: 20,
  multiRate: 200,
} as const;

/**
 * Issue 32's target for a provider webhook under forged forms: `bench:api` sends three 4 MB
 * forms of 400,000 parameters at once to the Twilio status webhook and reads the API's longest
 * event-loop stall meanwhile; `npm run bench`'s summary reads the same number.
 */
export const FORGED_FORM_TARGETS = {
  forms: 3,
  /** The API's longest event-loop stall while the forms are refused (parsing one whole took seconds). */
  stallMs: 250,
} as const;

/** Issue 26's target for the media bridge: `bench:voice` steps calls up against it; `npm run bench`'s summary reads it. */
export const VOICE_TARGETS = {
  /** Simultaneous live calls one media process bridges in real time (audio both ways, 20 ms frames). */
  calls: 50,
  /** Frame-forwarding latency the bridge adds, p99, each way. */
  p99AddedMs: 20,
} as const;

/** Issue 33's targets for the chat agent: `bench:agents` prints each figure beside its target. */
export const AGENT_TARGETS = {
  /** Simultaneous conversations, each this many turns with one tool call, the model answering in a fixed time. */
  conversations: 200,
  turns: 5,
  modelMs: 300,
  /** A person's wait between reading a reply and writing again (jittered ±50% in the bench). */
  thinkMs: 8_000,
  /** Inbound message → reply sent, p99, beyond the model's, the tool's and the burst window's time. */
  p99AddedMs: 150,
  /** CPU per turn of our processes (API, worker, Temporal, FerretDB; the fake model excluded). */
  cpuPerTurnMs: 40,
  /** Temporal history events per turn (the run's whole history over its turns). */
  historyEventsPerTurn: 20,
} as const;

/**
 * Issue 36 §3: the fewest Temporal history events and Cloud actions (bench/workflowCost.ts)
 * each unit of work could cost, printed beside what each bench measures. What a unit cannot do
 * without: a call's workflow must start, learn from the line that it was answered and that it
 * ended (a signal and a workflow task each) and close; sends and deliveries are batched, so
 * their share of a run's start and of a batch's step tends to nothing as batches fill; a due's
 * chase must start and wait on its reminder's timer.
 */
export const TEMPORAL_MINIMUM = {
  call: { events: 13, actions: 3, why: 'start + first task (4), answered and ended: a signal and a task each (8), close (1); actions: the start and two signals' },
  send: { events: 0, actions: 0, why: 'a campaign run shares its start and each batch step over the batch: → 0 per send as batches fill' },
  delivery: { events: 0, actions: 0, why: 'an endpoint workflow drains its inbox 64 at a time in one local activity: → 0 per delivery as drains fill' },
  due: { events: 5, actions: 2, why: 'a chase waiting on its reminder: start + first task (4) and the timer (1); actions: the start and the timer' },
} as const;
