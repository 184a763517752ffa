/** What other features use of campaigns: the limits an uploaded list shares. The composition roots (src/main, src/worker) wire the rest. */
export { CAMPAIGN_LIMITS } from './limits';
