/** A loopback port for the benchmarks' servers. */
import { once } from 'node:events';
import { createServer } from 'node:net';

/** A loopback port nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}
