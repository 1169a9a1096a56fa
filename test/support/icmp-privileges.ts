/** Whether this process may open raw ICMP sockets (root or CAP_NET_RAW), which in-process ICMP tests need. */
import { openIcmpSocket } from '../../exporter/src/probers/shared/icmp-socket';

export function rawSocketsAllowed(): boolean {
  try {
    openIcmpSocket({ family: 4, raw: true }, () => undefined).close();
    return true;
  } catch {
    return false;
  }
}
