/**
 * The targets of npm run bench, in a process of their own so that serving them does not compete with the
 * load generator in the bench process. Serves with the loopback servers the tests use (exporter/loopback). Prints
 * the ports as one JSON line (see TargetPorts) and exits when its stdin closes, so it never outlives the bench, even
 * one that crashed.
 * Usage: node --import tsx exporter/bench/target-server.ts <server certificate file> <server key file>
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo, Server } from 'node:net';
import http from 'node:http';
import https from 'node:https';
import http2 from 'node:http2';
import { startDnsTestServer } from '../loopback/dns-test-server';
import { startGrpcHealthServer } from '../loopback/grpc-health-server';
import { startTcpTestServer } from '../loopback/tcp-test-server';

export interface TargetPorts {
  readonly http: number;
  /** HTTP/2 over TLS, HTTP/1.1 allowed. */
  readonly https: number;
  /** HTTP/1.1 over TLS only: no HTTP/2 offered. */
  readonly https1: number;
  /** The line server of tcp-test-server: banner, then `250 <line>` for each line. */
  readonly tcp: number;
  readonly tcpTls: number;
  /** UDP and TCP. */
  readonly dns: number;
  readonly grpc: number;
}

async function listen(server: Server | http2.Http2SecureServer | https.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function main(): Promise<void> {
  const [certFile, keyFile] = process.argv.slice(2);
  const certs = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  const handler = (_request: unknown, response: http.ServerResponse | http2.Http2ServerResponse): void => {
    response.end('hello from the bench target');
  };
  const [httpPort, httpsPort, https1Port, tcp, tcpTls, dns, grpc] = await Promise.all([
    listen(http.createServer(handler)),
    listen(http2.createSecureServer({ ...certs, allowHTTP1: true }, handler)),
    listen(https.createServer(certs, handler)),
    startTcpTestServer(),
    startTcpTestServer({ ...certs, tls: true }),
    startDnsTestServer(),
    startGrpcHealthServer(),
  ]);
  const ports: TargetPorts = { http: httpPort, https: httpsPort, https1: https1Port, tcp: tcp.port, tcpTls: tcpTls.port, dns: dns.port, grpc: grpc.port };
  process.stdout.write(`${JSON.stringify(ports)}\n`);
  process.stdin.resume().on('end', () => process.exit(0));
}

void main();
