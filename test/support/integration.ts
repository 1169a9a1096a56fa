/**
 * Integration tests run against real programs (Prometheus, the reference blackbox_exporter, dnsmasq...).
 * Where one is missing they skip, except in CI (PROBEKIT_REQUIRE_INTEGRATION=1), where a missing
 * program is a failure: CI installs them all, so missing means the set-up is broken.
 */
import { accessSync, constants } from 'node:fs';

export const integrationRequired = process.env.PROBEKIT_REQUIRE_INTEGRATION === '1';

/**
 * Whether the program at `path` can run here; throws instead of answering false when integration is required,
 * saying how to get it (by default, its Debian package).
 */
export function requireBinary(path: string, howToGetIt = 'install its Debian package (see .ci/run)'): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    if (integrationRequired) {
      throw new Error(`${path} is missing, and PROBEKIT_REQUIRE_INTEGRATION=1 requires it: ${howToGetIt}`);
    }
    return false;
  }
}

/** `describe` that runs when every program is present and skips (visibly) otherwise. */
export function describeWithBinaries(paths: readonly string[]): jest.Describe {
  return paths.every((path) => requireBinary(path)) ? describe : describe.skip;
}
