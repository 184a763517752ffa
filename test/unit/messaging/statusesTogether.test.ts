import { furthestReport, type StatusReport } from '../../../src/messaging/deliveryStatus';
import { STATUS_RANK } from '../../../src/messaging/outboundMessages';
import { dueThrough } from '../../../src/providers/whatsapp/simulatedStatuses';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);
const report = (status: StatusReport['status'], ms: number): StatusReport => ({ status, at: at(ms) });

/** Several statuses recorded in one write leave what recording them one by one would. */
describe('furthestReport', () => {
  it('is the furthest status beyond where the message is, at its time', () => {
    expect(furthestReport([report('sent', 0), report('delivered', 10), report('read', 20)], STATUS_RANK.sent)).toEqual(report('read', 20));
    expect(furthestReport([report('sent', 0), report('failed', 10)], 0)).toEqual(report('failed', 10));
  });

  it('keeps the first time of a repeated status and ignores a late one behind it', () => {
    expect(furthestReport([report('delivered', 5), report('delivered', 9), report('sent', 12)], STATUS_RANK.sent)).toEqual(report('delivered', 5));
  });

  it('is null when nothing moves the message forward', () => {
    expect(furthestReport([report('sent', 0), report('delivered', 10)], STATUS_RANK.read)).toBeNull();
    expect(furthestReport([], 0)).toBeNull();
  });
});

describe('dueThrough', () => {
  const steps = [{ due_at: at(0) }, { due_at: at(0) }, { due_at: at(100) }];

  it('takes every step from the next one that is due by now', () => {
    expect(dueThrough(steps, 0, at(0).getTime())).toBe(2);
    expect(dueThrough(steps, 0, at(100).getTime())).toBe(3);
    expect(dueThrough(steps, 1, at(50).getTime())).toBe(2);
  });

  it('always takes the next step, whose wait is over', () => {
    expect(dueThrough(steps, 2, at(99).getTime())).toBe(3);
  });
});
