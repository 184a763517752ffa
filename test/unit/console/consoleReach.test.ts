import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { ConfigError } from '../../../src/config';
import { consoleBaseUrl, reach } from '../../../src/cli/console';
import { fromRoot } from '../../../src/local/paths';

/** A port nothing listens on: one the system just handed out and took back. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The CLI as `npm run console` runs it, from source. */
function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const childEnv: Record<string, string | undefined> = { ...process.env, CONSOLE_URL: '', ...env };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', fromRoot('test/support/registerTs.cjs'), fromRoot('src/main/console.ts'), ...args],
      { env: childEnv, cwd: fromRoot('.') },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
}

describe('the console CLI finding the API', () => {
  it('asks the API npm start runs: PORT, read as the API reads it, else 3000', () => {
    expect(consoleBaseUrl({})).toBe('http://127.0.0.1:3000');
    expect(consoleBaseUrl({ PORT: '3310' })).toBe('http://127.0.0.1:3310');
    expect(consoleBaseUrl({ PORT: '' })).toBe('http://127.0.0.1:3000');
    expect(consoleBaseUrl({ PORT: '3310', CONSOLE_URL: 'https://ops.example.com/' })).toBe('https://ops.example.com');
    expect(() => consoleBaseUrl({ PORT: 'abc' })).toThrow(ConfigError);
    expect(() => consoleBaseUrl({ PORT: 'abc' })).toThrow('PORT: expected a port number (got "abc")');
    expect(() => consoleBaseUrl({ CONSOLE_URL: '127.0.0.1:3000' })).toThrow('CONSOLE_URL: expected an http:// or https:// URL');
  });

  it('names the URL nothing answered at, and says to start the system', async () => {
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}/console/v1/workspaces`;
    await expect(reach(url)).rejects.toThrow(
      `could not reach ${url} (connection refused). Is the system running? Start it with npm start, or set PORT or CONSOLE_URL to where its API answers.`,
    );
  });

  it('prints one line and exits 1 when nothing listens on PORT, without a stack trace', async () => {
    const port = await closedPort();
    const { code, stdout, stderr } = await runCli(['workspaces', 'list'], { PORT: String(port), CONSOLE_TOKEN: 'ctk_0123456789abcdef' });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      `error: could not reach http://127.0.0.1:${port}/console/v1/workspaces (connection refused). Is the system running? ` +
        'Start it with npm start, or set PORT or CONSOLE_URL to where its API answers.\n',
    );
  });
});
