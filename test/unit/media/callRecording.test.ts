import { AgentPlayout } from '../../../src/media/agentPlayout';
import { CallRecording } from '../../../src/media/callRecording';
import { withModel } from '../../../src/media/mediaSession';

describe('the agent’s audio on the line (AgentPlayout)', () => {
  it('plays chunks back to back when they arrive faster than real time, from arrival on a quiet line, and nothing after a clear', () => {
    const playout = new AgentPlayout();
    expect(playout.place(160, 1_000)).toBe(1_000); // 20 ms
    expect(playout.place(160, 1_001)).toBe(1_020); // queued behind the first
    expect(playout.endMs).toBe(1_040);
    expect(playout.place(160, 5_000)).toBe(5_000); // the line had gone quiet
    playout.interrupt(5_005);
    expect(playout.endMs).toBe(5_005);
    expect(playout.place(80, 5_006)).toBe(5_006);
  });
});

describe('CallRecording', () => {
  it('writes a stereo 8 kHz mu-law WAV: the caller left at its stream time, the agent right where it played, cleared audio removed', () => {
    const recording = new CallRecording(10_000);
    recording.caller(Buffer.alloc(160, 0x11), 20); // stream ms 20 → sample 160
    recording.agent(Buffer.alloc(160, 0x22), 10_000); // at the stream's start
    recording.agent(Buffer.alloc(160, 0x33), 10_040); // samples 320..479
    recording.interrupted(10_050); // sample 400: the rest was never heard
    const wav = recording.wav();
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
    expect({ format: wav.readUInt16LE(20), channels: wav.readUInt16LE(22), rate: wav.readUInt32LE(24), bits: wav.readUInt16LE(34) }).toEqual({
      format: 7,
      channels: 2,
      rate: 8000,
      bits: 8,
    });
    const frames = wav.readUInt32LE(54) / 2;
    expect(frames).toBe(400);
    const data = wav.subarray(58);
    const left = (i: number) => data[2 * i];
    const right = (i: number) => data[2 * i + 1];
    expect([left(0), left(159), left(160), left(319), left(399)]).toEqual([0xff, 0xff, 0x11, 0x11, 0xff]);
    expect([right(0), right(159), right(160), right(320), right(399)]).toEqual([0x22, 0x22, 0xff, 0x33, 0x33]);
  });
});

describe('withModel', () => {
  it('adds ?model= unless the endpoint URL names one', () => {
    expect(withModel('wss://api.openai.com/v1/realtime', 'gpt-realtime')).toBe('wss://api.openai.com/v1/realtime?model=gpt-realtime');
    expect(withModel('wss://example.test/rt?model=other&x=1', 'gpt-realtime')).toBe('wss://example.test/rt?model=other&x=1');
  });
});
