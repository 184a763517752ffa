/** What other features use of campaigns: the limits an uploaded list shares, and the estimated finish and zoned time the console CLI's `campaigns watch` draws. The composition roots (src/main, src/worker) wire the rest. */
export { CAMPAIGN_LIMITS } from './limits';
export { campaignEta } from './estimate';
export { formatZonedStamp, formatZonedTime } from './zonedText';
