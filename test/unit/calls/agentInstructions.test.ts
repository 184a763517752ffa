import { agentInstructions } from '../../../src/calls/agentInstructions';
import { DEFAULT_AGENT_VOICE, agentVoice, type AgentVoice } from '../../../src/calls/agentVoice';
import { captureRequest, normaliseCapture } from '../../../src/calls/capture';
import { normaliseDetails } from '../../../src/calls/details';
import { OUTBOUND_OPENING } from '../../../src/calls/opening';
import type { OriginateRequest } from '../../../src/calls/voiceLine';

/**
 * What a voice agent on a real line is told for one call (api-core §4 POST /calls): the fixed
 * opening or the agent's greeting, the details confirmed first, the purpose and script, the
 * capture fields in order, the maximum length.
 */
describe('agentInstructions', () => {
  const request = (over: Partial<OriginateRequest> = {}): OriginateRequest => ({
    callId: 'call_1',
    tenantId: 'ws_1',
    direction: 'outbound',
    to: '+919811100001',
    fromNumber: '918000000001',
    agentId: 'bot_1',
    ringSeconds: 30,
    opening: OUTBOUND_OPENING,
    purpose: null,
    script: null,
    detailLines: [],
    capture: null,
    requestedAt: '2026-11-25T10:00:00.000Z',
    ...over,
  });
  const voice = (over: Partial<AgentVoice> = {}) => agentVoice(over);
  const capture = (body: unknown) => {
    const normalised = normaliseCapture(captureRequest.parse(body));
    if (!normalised.capture) throw new Error('capture fixture refused');
    return normalised.capture;
  };
  /** Where each text starts in the instructions; -1 when absent. */
  const at = (text: string, ...parts: string[]) => parts.map((p) => text.indexOf(p));

  it('an outbound call opens with the fixed opening and never the agent’s greeting', () => {
    const text = agentInstructions(request(), voice({ greeting: 'Namaste, Acme here!' }), 300);
    expect(text).toContain(`Open with exactly: "${OUTBOUND_OPENING}"`);
    expect(text).not.toContain('Namaste, Acme here!');
  });

  it('an inbound call is greeted with the agent’s greeting, not the outbound opening', () => {
    const text = agentInstructions(request({ direction: 'inbound' }), voice({ greeting: 'Namaste, Acme here!' }), 300);
    expect(text).toContain('Greet them with: "Namaste, Acme here!"');
    expect(text).not.toContain(OUTBOUND_OPENING);
    expect(text).not.toContain('You placed this call');
  });

  it('starts with the persona and language, then the standing instructions; blank instructions add nothing', () => {
    const text = agentInstructions(request(), voice({ persona: 'the billing assistant of Acme', language: 'hi-IN', instructions: '  Never quote prices.  ' }), 300);
    expect(text.startsWith('You are the billing assistant of Acme, speaking on a phone call in language "hi-IN".\n\nNever quote prices.\n\n')).toBe(true);
    const plain = agentInstructions(request(), voice({ instructions: '   ' }), 300);
    expect(plain).not.toMatch(/\n\n\s*\n\n/);
    expect(plain.split('\n\n')[1]).toMatch(/^You placed this call/);
  });

  it('confirms the person from the details before the purpose, the script or any question', () => {
    const text = agentInstructions(
      request({
        detailLines: normaliseDetails({ Name: 'Asha Rao', 'Order number': 'A-1093', Paid: true }),
        purpose: 'the delivery of order A-1093',
        script: 'Ask about the slot, then the gate code.',
        capture: capture({ fields: [{ label: 'Preferred slot', type: 'choice', options: ['Morning', 'Evening'] }] }),
      }),
      voice(),
      300,
    );
    expect(text).toContain('Before anything else, confirm you are speaking to the right person using these details; if they are not the person, apologise and end the call:\n- Name: Asha Rao\n- Order number: A-1093\n- Paid: yes');
    const [details, purpose, script, fields, opening] = at(text, 'Before anything else', 'The purpose of the call: the delivery of order A-1093', 'Ask about the slot', 'Find out the following', 'You placed this call') as [number, number, number, number, number];
    expect(opening).toBeGreaterThanOrEqual(0);
    expect([opening < details, details < purpose, purpose < script, script < fields]).toEqual([true, true, true, true]);
  });

  it('no details: no identity check', () => {
    expect(agentInstructions(request({ purpose: 'a survey' }), voice(), 300)).not.toContain('confirm you are speaking to the right person');
  });

  it('the script is a flow to cover in order, never read out; without one there is no script section', () => {
    const text = agentInstructions(request({ script: '1. Greet\n2. Ask about the refund' }), voice(), 300);
    expect(text).toContain('Cover this flow in order, in your own words; never read it out:\n1. Greet\n2. Ask about the refund');
    expect(agentInstructions(request(), voice(), 300)).not.toMatch(/script|flow in order/i);
  });

  it('the capture fields in the order given, each with its key, type, hint and options, then the success rule', () => {
    const text = agentInstructions(
      request({
        capture: capture({
          goal: 'Confirm the delivery',
          fields: [
            { label: 'Is someone home?', type: 'yes_no', required: true },
            { label: 'Preferred slot', type: 'choice', options: ['Morning', 'Evening'], hint: 'before 1 pm is morning' },
            { label: 'Rating', type: 'rating' },
          ],
          success: { field: 'is_someone_home', equals: true },
        }),
      }),
      voice(),
      300,
    );
    expect(text).toContain(
      [
        'Find out the following, in this order:',
        'Goal: Confirm the delivery',
        '1. Is someone home? [is_someone_home; yes_no; required]',
        '2. Preferred slot [preferred_slot; choice]',
        '   Hint: before 1 pm is morning',
        '   Options: Morning | Evening',
        '3. Rating [rating; rating]',
        'Success when is_someone_home is yes.',
      ].join('\n'),
    );
  });

  it('a capture with a goal and no fields still tells the agent its goal', () => {
    const text = agentInstructions(request({ capture: capture({ goal: 'Book a demo' }) }), voice(), 300);
    expect(text).toContain('What the call should achieve:\nGoal: Book a demo');
    expect(text).not.toContain('Find out the following');
  });

  it('ends with the agent’s maximum length and how to end the call, in words a person would use', () => {
    const ending = (seconds: number) => agentInstructions(request(), voice(), seconds).split('\n\n').at(-1);
    expect(ending(300)).toBe('The call may last at most 5 minutes. When the conversation is finished, say goodbye and use the end_call tool.');
    expect(ending(60)).toMatch(/^The call may last at most 1 minute\. /);
    expect(ending(90)).toMatch(/^The call may last at most 1 minute 30 seconds\. /);
    expect(ending(45)).toMatch(/^The call may last at most 45 seconds\. /);
  });

  it('the defaults make whole instructions: persona, opening, length', () => {
    expect(agentInstructions(request(), DEFAULT_AGENT_VOICE, 600).split('\n\n')).toEqual([
      `You are ${DEFAULT_AGENT_VOICE.persona}, speaking on a phone call in language "en".`,
      DEFAULT_AGENT_VOICE.instructions,
      `You placed this call. Open with exactly: "${OUTBOUND_OPENING}"`,
      'The call may last at most 10 minutes. When the conversation is finished, say goodbye and use the end_call tool.',
    ]);
  });
});
