/**
 * What the web flags mean, as upstream reads them: the URL the exporter is reachable under
 * (--web.external-url), the prefix of its endpoints (--web.route-prefix, by default that URL's path), and
 * the listening socket systemd passes (--web.systemd-socket).
 */
import { hostname } from 'node:os';

/** systemd passes its sockets from this descriptor on (sd_listen_fds). */
const SD_LISTEN_FDS_START = 3;

/**
 * The exporter's external URL: `written` as given, or `http://<host name>:<port>/` when not written. Its
 * path loses trailing slashes, as upstream's does. Without a port to infer from (socket activation), the
 * URL must be written.
 */
export function externalUrl(written: string | undefined, listenPort: number | undefined): URL {
  let text = written ?? '';
  if (text === '') {
    if (listenPort === undefined) throw new Error('Cannot infer the external URL with a systemd socket listener; pass --web.external-url');
    text = `http://${hostname()}:${listenPort}/`;
  }
  if (/^["']|["']$/.test(text)) throw new Error(`--web.external-url must not begin or end with quotes: ${text}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`--web.external-url must be an absolute URL such as http://exporter.example.com:9115/, not ${text}`);
  }
  url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url;
}

/**
 * The prefix every endpoint sits under: `/` or `/path/` (the trailing slash makes a browser resolve the status
 * page's relative links under it). Unset, it is the external URL's path.
 */
export function routePrefixOf(written: string | undefined, external: URL): string {
  const trimmed = (written || external.pathname).replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '/' : `/${trimmed}/`;
}

/**
 * The listening socket systemd passed this process: descriptor 3, when LISTEN_PID names this process and
 * LISTEN_FDS counts at least one (variables meant for another process, a parent's say, are ignored).
 */
export function systemdListenFd(env: NodeJS.ProcessEnv, pid: number): number {
  const count = Number(env.LISTEN_FDS ?? '0');
  if (env.LISTEN_PID !== String(pid) || !Number.isInteger(count) || count < 1) {
    throw new Error('--web.systemd-socket is set but systemd passed no socket (LISTEN_PID and LISTEN_FDS do not name this process); start the exporter from a systemd .socket unit');
  }
  return SD_LISTEN_FDS_START;
}
