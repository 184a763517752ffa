import type { CaptureField } from '../../../src/calls/types';
import { calleeScript } from '../../../src/providers/voice/simulatorScript';
import { simulatedTurns } from '../../../src/providers/voice/simulatedConversation';

const field = (key: string, label: string, over: Partial<CaptureField> = {}): CaptureField => ({
  key,
  label,
  type: 'yes_no',
  hint: null,
  options: [],
  required: true,
  display: 'auto',
  ...over,
});

const agentLines = (fields: CaptureField[], purpose: string | null = null) =>
  simulatedTurns({ opening: 'Hello.', purpose, detailLines: [], capture: { goal: null, fields, success: null }, script: calleeScript.parse({}) })
    .filter((t) => t.role === 'model')
    .map((t) => t.text);

describe('the simulated callee hears each question once punctuated (issue 35 §7)', () => {
  it('asks a label already written as a question as written, not "Will someone be home??"', () => {
    expect(agentLines([field('home', 'Will someone be home?')])).toContain('Will someone be home?');
  });

  it('adds the question mark a label lacks, and keeps the options after it', () => {
    const lines = agentLines([field('home', 'Someone at home'), field('slot', 'Preferred slot', { type: 'choice', options: ['Morning', 'Evening'] })]);
    expect(lines).toContain('Someone at home?');
    expect(lines).toContain('Preferred slot? The options are Morning, Evening.');
  });

  it('ends the purpose line once', () => {
    expect(agentLines([], 'your delivery tomorrow')).toContain("I'm calling about your delivery tomorrow.");
    expect(agentLines([], 'your delivery tomorrow.')).toContain("I'm calling about your delivery tomorrow.");
  });

  it('writes no doubled punctuation anywhere in the script', () => {
    const lines = agentLines([field('home', 'Will someone be home?'), field('ok', 'All good.')], 'the parcel!');
    expect(lines.filter((l) => /[?.!]{2}/.test(l))).toEqual([]);
  });
});
