import { type Config, ConfigError } from '../../config';
import { createOpenAiReader } from './openAiReader';
import { createSimulatedReader, type ReaderScriptLookup } from './simulatedReader';
import type { CallReader } from '../../calls';

export type { CallReader, ReadOptions } from '../../calls';
export { READER_PERMANENT_FAILURE, READER_TEMPORARY_FAILURE, ReaderPermanentError, ReaderTemporaryError } from '../../calls';
export type { ReaderFailureScript, ReaderScriptLookup } from './simulatedReader';
export { toActivityFailure } from './failures';

export type ReaderConfig = Pick<Config, 'READER_PROVIDER' | 'READER_BASE_URL' | 'READER_API_KEY' | 'READER_MODEL' | 'READER_TIMEOUT_MS'>;

export interface CallReaderHooks {
  /** Scripted reader failures per call (simulator only; the console stores them per destination). */
  scriptFor?: ReaderScriptLookup;
  /** Replaces Node's fetch for the real adapter (tests). */
  fetch?: typeof fetch;
}

/** The reader the worker uses, chosen by READER_PROVIDER. */
export function createCallReader(config: ReaderConfig, hooks: CallReaderHooks = {}): CallReader {
  if (config.READER_PROVIDER === 'simulator') return createSimulatedReader(hooks.scriptFor);
  const { READER_BASE_URL: baseUrl, READER_API_KEY: apiKey, READER_MODEL: model } = config;
  if (!baseUrl || !apiKey || !model) {
    throw new ConfigError(['READER_BASE_URL, READER_API_KEY and READER_MODEL: required when READER_PROVIDER is openai']);
  }
  return createOpenAiReader({ baseUrl, apiKey, model, timeoutMs: config.READER_TIMEOUT_MS, fetch: hooks.fetch });
}
