import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../../config';
import { plivoSettingsFrom, type PlivoConfig } from './plivo/settings';
import { PlivoVoiceProvider } from './plivo/plivoVoiceProvider';
import { SimulatedVoiceProvider, type SimulatedVoiceOptions } from './simulatedVoiceProvider';
import { twilioSettingsFrom, type TwilioConfig } from './twilio/settings';
import { TwilioVoiceProvider } from './twilio/twilioVoiceProvider';
import type { VoiceProvider } from '../../calls';

type VoiceConfig = TwilioConfig & PlivoConfig & Pick<Config, 'VOICE_SIMULATOR'>;
type VoiceDeps = { db: Db; temporal: Client; taskQueue: string; onLineError?: SimulatedVoiceOptions['onLineError'] };

/** Each VOICE_PROVIDER's adapter: a new provider is its folder and one line here (and in src/main/media.ts's MEDIA_LINES). */
const VOICE_PROVIDERS: Record<Config['VOICE_PROVIDER'], (config: VoiceConfig, deps: VoiceDeps) => VoiceProvider> = {
  simulator: (config, deps) => new SimulatedVoiceProvider(deps.db, deps.temporal, deps.taskQueue, { mode: config.VOICE_SIMULATOR, onLineError: deps.onLineError }),
  twilio: (config, deps) => new TwilioVoiceProvider(deps.db, twilioSettingsFrom(config)!),
  plivo: (config, deps) => new PlivoVoiceProvider(deps.db, plivoSettingsFrom(config)!),
};

/** The deployment's voice provider (VOICE_PROVIDER): one per process. */
export function createVoiceProvider(config: VoiceConfig, deps: VoiceDeps): VoiceProvider {
  return VOICE_PROVIDERS[config.VOICE_PROVIDER](config, deps);
}

export type { VoiceProvider } from '../../calls';
