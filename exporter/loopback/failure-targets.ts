/**
 * One target per failure class, on loopback, for the tests of the failure reasons and of `probekit test`: an
 * HTTP server (`/` answers, `/missing` is 404, `/stall` never answers, `/private` wants `Authorization: Bearer
 * <PRIVATE_TOKEN>`, `/slow...` answers after 150 ms and counts how many wait at once), an HTTPS server whose
 * certificate comes from a CA no client trusts by default, a closed port, a TCP server that says nothing and
 * one that says a banner and closes, a DNS server and a gRPC health server.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { startDnsTestServer, type DnsTestServer } from './dns-test-server';
import { startGrpcHealthServer, type GrpcHealthServer } from './grpc-health-server';
import { startHostileServer, type HostileServer } from './hostile-server';
import { freePort } from './reference-exporter';
import { startTcpTestServer, type TcpTestServer } from './tcp-test-server';
import { makeTlsFixtures, type TlsFixtures } from './tls-fixtures';

export const PRIVATE_TOKEN = 's3cret-token';

/** What the servers say: a banner line that no `^SSH-` expects. */
export const CLOSING_BANNER = '220 mail.example ESMTP';

export interface FailureTargets {
  /** http://127.0.0.1:port, without a trailing slash. */
  readonly webUrl: string;
  /** https://127.0.0.1:port, its certificate from `tls`'s CA. */
  readonly untrustedUrl: string;
  readonly tls: TlsFixtures;
  readonly closedPort: number;
  readonly silent: TcpTestServer;
  readonly sayAndClose: HostileServer;
  /** An HTTP server of the last century: every request answered `HTTP/1.0 200 OK`, then the connection closed. */
  readonly http10: HostileServer;
  readonly dns: DnsTestServer;
  readonly grpc: GrpcHealthServer;
  /** The most `/slow` requests waiting at once since the last reset. */
  mostSlowAtOnce(): number;
  resetSlowCount(): void;
  close(): Promise<void>;
}

async function listening(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

export async function startFailureTargets(): Promise<FailureTargets> {
  let waiting = 0;
  let most = 0;
  const web = createServer((request, response) => {
    if (request.url === '/stall') return;
    if (request.url === '/private') {
      response.statusCode = request.headers.authorization === `Bearer ${PRIVATE_TOKEN}` ? 200 : 401;
      response.end();
      return;
    }
    if (request.url?.startsWith('/slow')) {
      waiting += 1;
      most = Math.max(most, waiting);
      setTimeout(() => {
        waiting -= 1;
        response.end('slow');
      }, 150);
      return;
    }
    if (request.url === '/missing') response.statusCode = 404;
    response.end('hello from loopback');
  });
  const tls = makeTlsFixtures();
  const untrusted = createHttpsServer({ cert: tls.serverCert, key: tls.serverKey }, (_request, response) => response.end('secure'));
  const [webPort, untrustedPort, silent, sayAndClose, http10, dns, grpc, closedPort] = await Promise.all([
    listening(web),
    listening(untrusted),
    startTcpTestServer({ silent: true }),
    startHostileServer((connection) => connection.stream.end(`${CLOSING_BANNER}\n`)),
    startHostileServer((connection) => {
      void connection.firstData().then(() => connection.stream.end('HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok'));
    }),
    startDnsTestServer(),
    startGrpcHealthServer(),
    freePort(),
  ]);
  return {
    webUrl: `http://127.0.0.1:${webPort}`,
    untrustedUrl: `https://127.0.0.1:${untrustedPort}`,
    tls,
    closedPort,
    silent,
    sayAndClose,
    http10,
    dns,
    grpc,
    mostSlowAtOnce: () => most,
    resetSlowCount: () => {
      most = 0;
    },
    close: async () => {
      for (const server of [web, untrusted]) {
        server.closeAllConnections();
        server.close();
      }
      await Promise.all([silent.close(), sayAndClose.close(), http10.close(), dns.close(), grpc.close()]);
      tls.cleanup();
    },
  };
}
