import type { MergedOutcome } from '../../../src/campaigns/voice/mergedOutcome';
import { OutcomeReportBuilder, resolvedDisplay } from '../../../src/campaigns/voice/outcomes/report';
import { csvColumns, guardCell } from '../../../src/campaigns/voice/outcomes/csv';
import type { CampaignRecipientDoc } from '../../../src/campaigns/staging';
import type { Capture } from '../../../src/calls/types';

const capture: Capture = {
  goal: null,
  fields: [
    { key: 'count', label: 'How many', type: 'number', hint: null, options: [], required: false, display: 'auto' },
    { key: 'stars', label: 'Stars', type: 'rating', hint: null, options: [], required: false, display: 'auto' },
    { key: 'secret', label: 'Secret', type: 'text', hint: null, options: [], required: false, display: 'hidden' },
    { key: 'day', label: 'Day', type: 'date', hint: null, options: [], required: false, display: 'list' },
  ],
  success: null,
};

function person(position: number, fields: MergedOutcome['fields']): CampaignRecipientDoc {
  return {
    _id: `cmp_x:${position}`,
    tenant_id: 't',
    campaign_id: 'cmp_x',
    position,
    contact_id: `cnt_${position}`,
    to: '+919800000000',
    name: null,
    variables: [],
    state: 'called',
    skip_reason: null,
    message_id: null,
    state_at: new Date(0),
    created_at: new Date(0),
    calls: [{ call_id: `call_${position}`, kind: 'first', placed_at: new Date(Date.UTC(2026, 0, 1, 10, position)), answered: true, ended_at: null, disposition: 'completed', result_state: 'ready' }],
    outcome: {
      disposition: 'completed',
      goal_met: 'yes',
      success: null,
      summary: null,
      sentiment: null,
      next_step: 'none',
      next_step_reason: null,
      fields,
      evidence: {},
      captured: Object.keys(fields).length,
      expected: 4,
      missing_required: [],
      call_id: `call_${position}`,
    },
  };
}

describe('the outcome report', () => {
  it('summarises numbers as a distribution, ratings as counts with a mean, dates as counts, and hides hidden fields', () => {
    const report = new OutcomeReportBuilder(capture);
    [1, 2, 3, 10].forEach((count, i) => report.add(person(i, { count, stars: (i % 5) + 1, secret: 'x', day: i < 2 ? '2026-01-02' : '2026-01-01' })));
    const built = report.build({ _id: 'cmp_x', status: 'running' }, new Date(Date.UTC(2026, 0, 1, 12)));
    const [count, stars, secret, day] = built.fields;
    expect(count).toMatchObject({ display: 'stat', answered: 4, summary: { kind: 'distribution', count: 4, min: 1, max: 10, mean: 4, median: 2.5 } });
    expect(count!.summary!.kind === 'distribution' && count!.summary!.buckets.reduce((n, b) => n + b.count, 0)).toBe(4);
    expect(stars).toMatchObject({ display: 'bars', summary: { kind: 'counts', counts: { '1': 1, '2': 1, '3': 1, '4': 1, '5': 0 }, mean: 2.5 } });
    expect(secret).toEqual({ key: 'secret', label: 'Secret', type: 'text', display: 'hidden', answered: 4, summary: null });
    expect(day).toMatchObject({ display: 'list', summary: { kind: 'counts', counts: { '2026-01-01': 2, '2026-01-02': 2 } } });
    expect(built.timeline).toEqual([{ hour: '2026-01-01T10:00:00Z', calls: 4, answered: 4, completed: 4 }]);
    expect(built.generated_at).toBe('2026-01-01T12:00:00.000000+00:00');
  });

  it('resolves auto displays by type', () => {
    expect(resolvedDisplay({ ...capture.fields[0]!, type: 'yes_no' })).toBe('donut');
    expect(resolvedDisplay({ ...capture.fields[0]!, type: 'text' })).toBe('list');
  });
});

describe('the outcomes CSV', () => {
  it('defuses cells a spreadsheet would run, leaving plain numbers', () => {
    for (const cell of ['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\tx', '\rx']) expect(guardCell(cell)).toBe(`'${cell}`);
    for (const cell of ['+919812345678', '-3', '12.5', 'plain', 'a=b']) expect(guardCell(cell)).toBe(cell);
  });
  it('names a column per field key and its evidence', () => {
    expect(csvColumns(capture).slice(13)).toEqual(['count', 'stars', 'secret', 'day', 'evidence:count', 'evidence_turn:count', 'evidence:stars', 'evidence_turn:stars', 'evidence:secret', 'evidence_turn:secret', 'evidence:day', 'evidence_turn:day']);
  });
});
