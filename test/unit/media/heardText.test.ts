import { heardText } from '../../../src/media/turnLog';

const TEXT = 'It is booked for tomorrow morning. Will someone be at home to sign for it?';

describe('heardText', () => {
  it('keeps the whole words within the played share of the audio, and marks the cut with …', () => {
    // 40 % of 74 characters is 29.6: "It is booked for tomorrow" ends at 25, "morning." at 34.
    expect(heardText(TEXT, { playedMs: 400, generatedMs: 1_000 })).toBe('It is booked for tomorrow…');
    expect(heardText(TEXT, { playedMs: 480, generatedMs: 1_000 })).toBe('It is booked for tomorrow morning…');
  });

  it('keeps the text when all of it was played, or nothing is known of the audio', () => {
    expect(heardText(TEXT, { playedMs: 1_000, generatedMs: 1_000 })).toBe(TEXT);
    expect(heardText(TEXT, { playedMs: 1_050, generatedMs: 1_000 })).toBe(TEXT);
    expect(heardText(TEXT, { playedMs: 300, generatedMs: 0 })).toBe(TEXT);
  });

  it('keeps nothing when no whole word was played', () => {
    expect(heardText(TEXT, { playedMs: 0, generatedMs: 1_000 })).toBe('');
    expect(heardText(TEXT, { playedMs: 10, generatedMs: 1_000 })).toBe('');
  });
});
