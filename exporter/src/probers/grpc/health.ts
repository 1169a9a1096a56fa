/**
 * The standard gRPC health service (grpc.health.v1, health.proto of the gRPC project) as a package
 * definition built in code, so neither the bundle nor the container image needs a .proto file beside it.
 * The prober's client and the tests' health servers both use it.
 */
import { loadPackageDefinition, type ServiceClientConstructor, type ServiceDefinition } from '@grpc/grpc-js';
import { fromJSON } from '@grpc/proto-loader';

/** HealthCheckResponse.ServingStatus, in number order; probe_grpc_healthcheck_response has one series each. */
export const SERVING_STATUSES = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;
export type ServingStatus = (typeof SERVING_STATUSES)[number];

export interface HealthCheckRequest {
  service: string;
}

export interface HealthCheckResponse {
  status: ServingStatus;
}

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

interface HealthPackage {
  grpc: { health: { v1: { Health: ServiceClientConstructor } } };
}

const loaded = loadPackageDefinition(fromJSON(healthProto as Parameters<typeof fromJSON>[0], { enums: String, defaults: true })) as unknown as HealthPackage;

/** Client constructor for grpc.health.v1.Health. */
export const HealthClient = loaded.grpc.health.v1.Health;

/** The service definition, for servers implementing grpc.health.v1.Health. */
export const healthService: ServiceDefinition = HealthClient.service;
