import { createServer, type Server } from 'node:net';
import { freePort } from '../../../src/local/net';
import { portHolder } from '../../../src/local/portHolder';

/** The busy-port message's holder, read from /proc: this test process listens, then not. */

const listen = (host: string) =>
  new Promise<Server>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });
const portOf = (server: Server) => (server.address() as { port: number }).port;
const close = (server: Server) => new Promise((resolve) => server.close(resolve));

describe('portHolder', () => {
  it.each(['127.0.0.1', '::'])('names the process listening on %s (its pid and command line)', async (host) => {
    const server = await listen(host);
    try {
      const holder = portHolder(portOf(server));
      expect(holder?.pid).toBe(process.pid);
      expect(holder?.command).toMatch(/node/);
    } finally {
      await close(server);
    }
  });

  it('finds nobody on a port nothing listens on', async () => {
    expect(portHolder(await freePort())).toBeNull();
  });
});
