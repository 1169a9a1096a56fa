/** The metrics only the grpc prober sets, with upstream's names. */
import { metric } from '../../metrics';

export const PROBE_GRPC_DURATION = metric('probe_grpc_duration_seconds', 'Time spent in each phase of the gRPC health check, in seconds');
export const PROBE_GRPC_SSL = metric('probe_grpc_ssl', 'Whether the health check was answered over TLS');
export const PROBE_GRPC_STATUS_CODE = metric('probe_grpc_status_code', 'gRPC status code of the health check call (0 is OK)');
export const PROBE_GRPC_HEALTHCHECK_RESPONSE = metric('probe_grpc_healthcheck_response', 'Serving status the health check answered: 1 for the one given, 0 for the others');

/** The phases of probe_grpc_duration_seconds, always all present: upstream names them resolve and check. */
export const GRPC_PHASES = ['resolve', 'check'] as const;
