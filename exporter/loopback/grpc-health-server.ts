/**
 * A gRPC server with the standard health service, on loopback, plain or with TLS. Statuses by service
 * name: '' and 'up' are SERVING, 'down' NOT_SERVING, 'starting' UNKNOWN; any other name gets NOT_FOUND,
 * as the reference health server does. The service names asked and the authority (host) of each call are recorded.
 */
import { loadPackageDefinition, Server, ServerCredentials, status, type ServerUnaryCall, type sendUnaryData, type ServiceClientConstructor } from '@grpc/grpc-js';
import { fromJSON } from '@grpc/proto-loader';
import { SERVING_STATUSES, type ServingStatus } from '../src/probers/grpc/health';

interface HealthCheckRequest {
  service: string;
}

interface HealthCheckResponse {
  status: ServingStatus;
}

/**
 * grpc.health.v1 as the gRPC project's health.proto defines it, built in code for grpc-js (a real gRPC
 * server, so the prober's own encoding is tested against another implementation).
 */
const healthProto = {
  nested: {
    grpc: {
      nested: {
        health: {
          nested: {
            v1: {
              nested: {
                HealthCheckRequest: { fields: { service: { type: 'string', id: 1 } } },
                HealthCheckResponse: {
                  fields: { status: { type: 'ServingStatus', id: 1 } },
                  nested: { ServingStatus: { values: Object.fromEntries(SERVING_STATUSES.map((name, index) => [name, index])) } },
                },
                Health: {
                  methods: {
                    Check: { requestType: 'HealthCheckRequest', responseType: 'HealthCheckResponse' },
                    Watch: { requestType: 'HealthCheckRequest', responseType: 'HealthCheckResponse', responseStream: true },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

const healthService = (
  loadPackageDefinition(fromJSON(healthProto as Parameters<typeof fromJSON>[0], { enums: String, defaults: true })) as unknown as { grpc: { health: { v1: { Health: ServiceClientConstructor } } } }
).grpc.health.v1.Health.service;

const STATUSES: Record<string, ServingStatus> = { '': 'SERVING', up: 'SERVING', down: 'NOT_SERVING', starting: 'UNKNOWN' };

export interface GrpcHealthServer {
  readonly port: number;
  readonly services: string[];
  readonly authorities: string[];
  close(): Promise<void>;
}

export async function startGrpcHealthServer(options: { host?: string; tls?: { cert: string; key: string } } = {}): Promise<GrpcHealthServer> {
  const services: string[] = [];
  const authorities: string[] = [];
  const server = new Server();
  server.addService(healthService, {
    Check: (call: ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>, callback: sendUnaryData<HealthCheckResponse>) => {
      services.push(call.request.service);
      authorities.push(call.getHost());
      const known = STATUSES[call.request.service];
      if (known === undefined) callback({ code: status.NOT_FOUND, details: 'unknown service' });
      else callback(null, { status: known });
    },
  });
  const credentials = options.tls ? ServerCredentials.createSsl(null, [{ cert_chain: Buffer.from(options.tls.cert), private_key: Buffer.from(options.tls.key) }]) : ServerCredentials.createInsecure();
  const host = options.host ?? '127.0.0.1';
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:0`, credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return {
    port,
    services,
    authorities,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())).then(() => server.forceShutdown()),
  };
}
