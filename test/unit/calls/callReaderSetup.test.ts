import { ApplicationFailure } from '@temporalio/common';
import { ConfigError, loadConfig } from '../../../src/config';
import type { ReadInput } from '../../../src/calls/types';
import { createCallReader, ReaderPermanentError, ReaderTemporaryError, toActivityFailure } from '../../../src/providers/reader';

const input: ReadInput = {
  callId: 'call_setup',
  direction: 'outbound',
  goal: null,
  purpose: 'Say hello',
  capture: null,
  transcript: [
    { role: 'model', text: 'Hello!', at_seconds: 0.8 },
    { role: 'user', text: 'Hi there, thanks.', at_seconds: 2.3 },
  ],
  answeredAt: '2025-03-05T10:00:00.000Z',
};

describe('reader settings', () => {
  it('default to the simulator with a 30 s timeout', () => {
    expect(loadConfig({})).toMatchObject({ READER_PROVIDER: 'simulator', READER_TIMEOUT_MS: 30_000 });
  });

  it('refuse the openai provider without its endpoint, key and model, naming each', () => {
    let caught: unknown;
    try {
      loadConfig({ READER_PROVIDER: 'openai' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).message).toBe(
      [
        'Invalid configuration:',
        '  READER_BASE_URL: required when READER_PROVIDER is openai',
        '  READER_API_KEY: required when READER_PROVIDER is openai',
        '  READER_MODEL: required when READER_PROVIDER is openai',
      ].join('\n'),
    );
  });

  it('accept the openai provider with all three', () => {
    const config = loadConfig({ READER_PROVIDER: 'openai', READER_BASE_URL: 'https://llm.example/v1', READER_API_KEY: 'sk-x', READER_MODEL: 'gpt-x', READER_TIMEOUT_MS: '5000' });
    expect(config).toMatchObject({ READER_PROVIDER: 'openai', READER_BASE_URL: 'https://llm.example/v1', READER_MODEL: 'gpt-x', READER_TIMEOUT_MS: 5000 });
  });

  it.each([
    ['READER_PROVIDER', 'anthropic', /^ {2}READER_PROVIDER: /m],
    ['READER_BASE_URL', 'llm.example', /^ {2}READER_BASE_URL: expected an http:\/\/ or https:\/\/ URL \(got "llm.example"\)$/m],
    ['READER_TIMEOUT_MS', '50', /^ {2}READER_TIMEOUT_MS: expected milliseconds from 100 to 600000 \(got "50"\)$/m],
    ['READER_TIMEOUT_MS', 'soon', /^ {2}READER_TIMEOUT_MS: expected milliseconds \(got "soon"\)$/m],
  ])('refuse %s=%s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});

describe('createCallReader', () => {
  it('builds the simulated reader by default, with its failure scripts', async () => {
    const reader = createCallReader(loadConfig({}), { scriptFor: (callId) => (callId === 'call_setup' ? { failTimes: 1 } : null) });
    await expect(reader.read(input, { attempt: 1 })).rejects.toThrow(ReaderTemporaryError);
    await expect(reader.read(input, { attempt: 2 })).resolves.toMatchObject({ disposition: 'completed', sentiment: 'positive' });
  });

  it('builds the OpenAI-compatible reader when chosen, posting to the configured endpoint', async () => {
    const calls: { url: string; init: RequestInit }[] = [];
    const fakeFetch = (async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return new Response(JSON.stringify({ error: { message: 'Incorrect API key provided.' } }), { status: 401 });
    }) as unknown as typeof fetch;
    const config = loadConfig({ READER_PROVIDER: 'openai', READER_BASE_URL: 'https://llm.example/v1/', READER_API_KEY: 'sk-x', READER_MODEL: 'gpt-x' });
    const reader = createCallReader(config, { fetch: fakeFetch, scriptFor: () => ({ permanent: true }) });
    await expect(reader.read(input)).rejects.toThrow(new ReaderPermanentError('The reader answered 401: Incorrect API key provided.'));
    expect(calls.map((c) => c.url)).toEqual(['https://llm.example/v1/chat/completions']);
    expect(JSON.parse(calls[0]!.init.body as string)).toMatchObject({ model: 'gpt-x' });
  });

  it('refuses an openai config assembled without its settings', () => {
    expect(() => createCallReader({ ...loadConfig({}), READER_PROVIDER: 'openai' })).toThrow(ConfigError);
  });
});

describe('toActivityFailure', () => {
  it('makes a permanent reader error a non-retryable failure of its type', () => {
    const failure = toActivityFailure(new ReaderPermanentError('The reader answered 401: no.'));
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: 'ReaderPermanentError', nonRetryable: true, message: 'The reader answered 401: no.' });
  });

  it('makes a temporary reader error a retryable failure of its type', () => {
    expect(toActivityFailure(new ReaderTemporaryError('The reader answered 503: busy.'))).toMatchObject({
      type: 'ReaderTemporaryError',
      nonRetryable: false,
      message: 'The reader answered 503: busy.',
    });
  });

  it('counts any other error as temporary and passes an ApplicationFailure through', () => {
    expect(toActivityFailure(new TypeError('x is undefined'))).toMatchObject({
      type: 'ReaderTemporaryError',
      nonRetryable: false,
      message: 'The reader failed unexpectedly: x is undefined',
    });
    const own = ApplicationFailure.nonRetryable('stop', 'Other');
    expect(toActivityFailure(own)).toBe(own);
  });
});
