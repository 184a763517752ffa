import { DEFAULT_AGENT_VOICE } from '../../../src/calls/agentVoice';
import { AGENT_VOICE_LIMITS, agentVoiceChange, agentVoiceSettings, canonicalLanguage } from '../../../src/calls/agentVoiceRules';

/** The one set of rules for an agent's voice settings (src/calls/agentVoiceRules.ts). */
describe('agent voice rules', () => {
  const issues = (body: unknown) => {
    const parsed = agentVoiceSettings.safeParse(body);
    return parsed.success ? [] : parsed.error.issues.map((i) => ({ path: i.path, message: i.message }));
  };

  it('the defaults keep the rules, unchanged', () => {
    expect(agentVoiceSettings.parse(DEFAULT_AGENT_VOICE)).toEqual(DEFAULT_AGENT_VOICE);
  });

  it('a language is a BCP 47 tag, kept in its canonical form', () => {
    expect(['en', 'EN-in', 'hi-IN', 'ta', 'zh-hant-tw', 'es-419'].map(canonicalLanguage)).toEqual(['en', 'en-IN', 'hi-IN', 'ta', 'zh-Hant-TW', 'es-419']);
    expect(['', 'english', 'en_US', 'e', 'en-', '12', 'en\nUS', `en-${'a'.repeat(40)}`].map(canonicalLanguage)).toEqual(Array(8).fill(null));
    expect(agentVoiceSettings.parse({ language: ' EN-in ' })).toEqual({ language: 'en-IN' });
    expect(issues({ language: 'english' })).toEqual([{ path: ['language'], message: 'expected a BCP 47 language tag, e.g. en, hi-IN or ta' }]);
  });

  it('lengths: persona, greeting and voice need a word; instructions may be empty; each has its most', () => {
    expect(issues({ persona: '  ', greeting: '', voice: '' }).map((i) => i.path[0])).toEqual(['persona', 'voice', 'greeting']);
    expect(agentVoiceSettings.parse({ instructions: '' })).toEqual({ instructions: '' });
    expect(issues({ persona: 'p'.repeat(AGENT_VOICE_LIMITS.personaChars) })).toEqual([]);
    expect(issues({ persona: 'p'.repeat(AGENT_VOICE_LIMITS.personaChars + 1) })[0]!.path).toEqual(['persona']);
    expect(issues({ instructions: 'i'.repeat(AGENT_VOICE_LIMITS.instructionsChars + 1) })[0]!.path).toEqual(['instructions']);
    expect(issues({ greeting: 'g'.repeat(AGENT_VOICE_LIMITS.greetingChars + 1) })[0]!.path).toEqual(['greeting']);
    expect(issues({ voice: 'v'.repeat(AGENT_VOICE_LIMITS.voiceChars + 1) })[0]!.path).toEqual(['voice']);
  });

  it('control characters: none in a line of speech; instructions keep line breaks and tabs', () => {
    expect(issues({ greeting: 'Hello\u0000there' })).toEqual([{ path: ['greeting'], message: 'must not hold control characters' }]);
    expect(issues({ persona: 'a\nb' })[0]!.path).toEqual(['persona']);
    expect(agentVoiceSettings.parse({ instructions: 'One.\n\tTwo.\r\nThree.' })).toEqual({ instructions: 'One.\n\tTwo.\r\nThree.' });
    expect(issues({ instructions: 'bell\u0007' })).toEqual([{ path: ['instructions'], message: 'must not hold control characters other than line breaks and tabs' }]);
    // Joiners belong to scripts such as Devanagari and Malayalam: kept.
    expect(agentVoiceSettings.parse({ greeting: 'नमस्ते\u200d!' })).toEqual({ greeting: 'नमस्ते\u200d!' });
  });

  it('a voice is a name; idle seconds a whole number from 5 to 300', () => {
    expect(issues({ voice: 'marin' })).toEqual([]);
    expect(issues({ voice: 'my voice' })[0]!.path).toEqual(['voice']);
    expect(issues({ idle_seconds: AGENT_VOICE_LIMITS.idleSecondsMin })).toEqual([]);
    expect(issues({ idle_seconds: AGENT_VOICE_LIMITS.idleSecondsMax })).toEqual([]);
    expect([4, 301, 7.5, '20'].map((idle_seconds) => issues({ idle_seconds }).length)).toEqual([1, 1, 1, 1]);
  });

  it('unknown settings are refused; a change may set a field to null (back to its default)', () => {
    expect(issues({ tone: 'warm' })).toEqual([{ path: [], message: 'Unrecognized key: "tone"' }]);
    expect(agentVoiceChange.parse({ greeting: null, idle_seconds: 30 })).toEqual({ greeting: null, idle_seconds: 30 });
  });
});
