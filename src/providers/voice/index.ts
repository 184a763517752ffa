import type { Client } from '@temporalio/client';
import type { Db } from 'mongodb';
import type { Config } from '../../config';
import { SimulatedVoiceProvider, type SimulatedVoiceOptions } from './simulatedVoiceProvider';
import { twilioSettingsFrom, type TwilioConfig } from './twilio/settings';
import { TwilioVoiceProvider } from './twilio/twilioVoiceProvider';
import type { VoiceProvider } from '../../calls';

/** The deployment's voice provider (VOICE_PROVIDER): one per process. */
export function createVoiceProvider(
  config: TwilioConfig & Pick<Config, 'VOICE_SIMULATOR'>,
  deps: { db: Db; temporal: Client; taskQueue: string; onLineError?: SimulatedVoiceOptions['onLineError'] },
): VoiceProvider {
  const twilio = twilioSettingsFrom(config);
  if (twilio) return new TwilioVoiceProvider(deps.db, twilio);
  return new SimulatedVoiceProvider(deps.db, deps.temporal, deps.taskQueue, { mode: config.VOICE_SIMULATOR, onLineError: deps.onLineError });
}

export type { VoiceProvider } from '../../calls';
