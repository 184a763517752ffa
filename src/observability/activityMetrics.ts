import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Counts and times every activity attempt by type and result, for the worker's /metrics. */
export function activityMetricsInterceptor(registry: Registry): ActivityInterceptorsFactory {
  const attempts = new Counter({
    name: 'activity_attempts_total',
    help: 'Activity attempts by activity type and result.',
    labelNames: ['activity_type', 'result'],
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'activity_duration_seconds',
    help: 'Activity attempt duration by activity type.',
    labelNames: ['activity_type'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return (ctx) => ({
    inbound: {
      async execute(input, next) {
        const type = ctx.info.activityType;
        const stop = seconds.startTimer({ activity_type: type });
        try {
          const result = await next(input);
          attempts.inc({ activity_type: type, result: 'ok' });
          return result;
        } catch (err) {
          attempts.inc({ activity_type: type, result: 'error' });
          throw err;
        } finally {
          stop();
        }
      },
    },
  });
}
