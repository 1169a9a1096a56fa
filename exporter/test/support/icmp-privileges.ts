/** Whether this process may open raw ICMP sockets (root or CAP_NET_RAW), which in-process ICMP tests need. */
import { openIcmpSocket } from '../../src/probers/icmp/socket';
import { integrationRequired } from '../../../test/support/integration';

/**
 * False where raw sockets are not allowed here, so the ICMP tests skip; in CI (PROBEKIT_REQUIRE_INTEGRATION=1),
 * which runs as root with the addon built by npm ci, not being able to is a failure, never a skip.
 */
export function rawSocketsAllowed(): boolean {
  try {
    openIcmpSocket({ family: 4, raw: true }, () => undefined).close();
    return true;
  } catch (error) {
    if (integrationRequired) {
      throw new Error(`ICMP tests need a raw socket, and PROBEKIT_REQUIRE_INTEGRATION=1 requires them: ${(error as Error).message} (run as root, and build the addon with npm ci)`);
    }
    return false;
  }
}
