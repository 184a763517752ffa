import type { Config } from '../config';
import { retentionCutoff, type RetentionSweep } from '../events/retention';
import { sweepExpiredCallTranscripts } from '../calls/transcriptRetention';
import { sweepExpiredTurns } from '../conversations/retention';
import { sweepExpiredDeliveries } from '../webhooks/deliveryRetention';

const DAY_MS = 86_400_000;

/**
 * The retention sweeps whose ages are settings (src/config.ts): webhook deliveries
 * (DELIVERY_RETENTION_DAYS), conversation turns and call transcripts
 * (TRANSCRIPT_RETENTION_DAYS), trail rows (TRAIL_RETENTION_DAYS). The worker registers them
 * with the retention sweeper (src/events/retention.ts), which passes each the pace.
 */
export function configuredRetentionSweeps(config: Pick<Config, 'DELIVERY_RETENTION_DAYS' | 'TRANSCRIPT_RETENTION_DAYS' | 'TRAIL_RETENTION_DAYS'>): RetentionSweep[] {
  const before = (options: Parameters<RetentionSweep>[0], days: number) => retentionCutoff({ now: options.now, retentionMs: days * DAY_MS });
  const pace = (options: Parameters<RetentionSweep>[0]) => ({ batchSize: options.batchSize, maxBatches: options.maxBatches, pauseMs: options.pauseMs, signal: options.signal });
  return [
    (options) => sweepExpiredDeliveries({ ...options, retentionMs: config.DELIVERY_RETENTION_DAYS * DAY_MS }),
    (options) =>
      sweepExpiredTurns(options.db, { turnsBefore: before(options, config.TRANSCRIPT_RETENTION_DAYS), trailBefore: before(options, config.TRAIL_RETENTION_DAYS) }, pace(options)),
    (options) => sweepExpiredCallTranscripts(options.db, before(options, config.TRANSCRIPT_RETENTION_DAYS), pace(options), options.now?.()),
  ];
}
