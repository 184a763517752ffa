import { z } from 'zod';
import type { AgentVoice } from './agentVoice';

/**
 * What an agent's voice settings (src/calls/agentVoice.ts) may hold, in one place: the
 * console's routes validate with these schemas, the web console sizes its inputs from the
 * limits (served in the agent's view), and the defaults are held to them by a unit test.
 * The spec says nothing of these fields; the choices are in docs/decisions/README.md.
 */
export const AGENT_VOICE_LIMITS = {
  personaChars: 300,
  /** As long as a call's script (api-core §4): standing instructions are of that kind. */
  instructionsChars: 4_000,
  voiceChars: 40,
  /** As long as a call's purpose: one or two spoken sentences. */
  greetingChars: 500,
  /** The longest well-formed BCP 47 tag worth storing (RFC 5646 advises 35 characters). */
  languageChars: 35,
  /** Under 5 s a person's pause to think would end the call. */
  idleSecondsMin: 5,
  /** Past 5 minutes of silence nobody is on the line; the agent's maximum length still ends it. */
  idleSecondsMax: 300,
} as const;

/** The settings' names, in the order forms show them. */
export const AGENT_VOICE_FIELDS = ['persona', 'instructions', 'voice', 'language', 'greeting', 'idle_seconds'] as const satisfies readonly (keyof AgentVoice)[];

/** Control characters have no place in a line of speech; instructions keep line breaks and tabs. */
const CONTROL = /\p{Cc}/u;
const CONTROL_BUT_LAYOUT = /[^\P{Cc}\n\r\t]/u;

const line = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((s) => !CONTROL.test(s), 'must not hold control characters');

/**
 * A BCP 47 language tag, stored in its canonical form (`EN-in` → `en-IN`). Node's `Intl`
 * decides well-formedness, and the primary language is an ISO 639 code of 2 or 3 letters
 * (BCP 47 also allows 5 to 8 for languages it may register one day, none of which exist; a
 * word such as `english` is a mistake). Whether the model speaks it is the endpoint's business.
 */
export function canonicalLanguage(tag: string): string | null {
  if (!/^[A-Za-z]{2,3}(?:-|$)/.test(tag) || CONTROL.test(tag) || tag.length > AGENT_VOICE_LIMITS.languageChars) return null;
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    return canonical ?? null;
  } catch {
    return null;
  }
}

const language = z
  .string()
  .trim()
  .max(AGENT_VOICE_LIMITS.languageChars)
  .transform((tag, ctx) => {
    const canonical = canonicalLanguage(tag);
    if (!canonical) {
      ctx.addIssue({ code: 'custom', message: 'expected a BCP 47 language tag, e.g. en, hi-IN or ta' });
      return z.NEVER;
    }
    return canonical;
  });

/** Each voice field as a request may set it. */
export const agentVoiceFieldSchemas = {
  persona: line(AGENT_VOICE_LIMITS.personaChars),
  instructions: z
    .string()
    .trim()
    .max(AGENT_VOICE_LIMITS.instructionsChars)
    .refine((s) => !CONTROL_BUT_LAYOUT.test(s), 'must not hold control characters other than line breaks and tabs'),
  voice: z
    .string()
    .trim()
    .min(1)
    .max(AGENT_VOICE_LIMITS.voiceChars)
    // Empty passes here so that an empty name is told once, by min(1).
    .regex(/^(?:[A-Za-z0-9][A-Za-z0-9_.-]*)?$/, 'expected a voice name: letters, digits, _ . or -, e.g. alloy'),
  language,
  greeting: line(AGENT_VOICE_LIMITS.greetingChars),
  idle_seconds: z.number().int().min(AGENT_VOICE_LIMITS.idleSecondsMin).max(AGENT_VOICE_LIMITS.idleSecondsMax),
} satisfies Record<keyof AgentVoice, z.ZodType>;

/** Settings given when an agent is created: any subset; what is left out takes the default. */
export const agentVoiceSettings = z.object(agentVoiceFieldSchemas).partial().strict();

/** A change to an agent's settings: a field set to null goes back to the default. */
export const agentVoiceChange = z
  .object({
    persona: agentVoiceFieldSchemas.persona.nullable(),
    instructions: agentVoiceFieldSchemas.instructions.nullable(),
    voice: agentVoiceFieldSchemas.voice.nullable(),
    language: agentVoiceFieldSchemas.language.nullable(),
    greeting: agentVoiceFieldSchemas.greeting.nullable(),
    idle_seconds: agentVoiceFieldSchemas.idle_seconds.nullable(),
  })
  .partial()
  .strict();
