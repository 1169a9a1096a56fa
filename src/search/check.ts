/**
 * What the assistant needs of its integration settings (URL and API token, entered in its integration card): the engine is reachable, the API token
 * authenticates, and it holds the privileges the skills use. Each is reported, so that a user sees all that is
 * missing at once rather than one failure at a time.
 */
import { SKILLS_PRIVILEGES } from './api-key';
import { createSearchClient, describeFailure, displayUrl, type SearchEngineConnection } from './connection';

export interface CheckItem {
  readonly what: string;
  readonly ok: boolean;
  readonly detail?: string;
}

export interface CheckReport {
  readonly ok: boolean;
  readonly items: readonly CheckItem[];
}

export async function checkIntegration(connection: SearchEngineConnection, apiToken: string): Promise<CheckReport> {
  const client = createSearchClient(connection, { apiToken });
  const items: CheckItem[] = [];
  const where = displayUrl(connection.url);
  try {
    try {
      const me = await client.security.authenticate();
      items.push({ what: `reachable: ${where} answers as Elasticsearch`, ok: true });
      const who = me.api_key ? `API key "${me.api_key.name ?? ''}" (id ${me.api_key.id}) of user ${me.username}` : `user ${me.username}`;
      items.push({ what: `token authenticates as ${who}`, ok: true });
    } catch (error) {
      const failure = describeFailure(error, connection.url, 'authenticating with the API token', 'API token');
      const reachable = failure.failure === 'unauthorized' || failure.failure === 'forbidden';
      items.push({ what: `reachable: ${where}`, ok: reachable, ...(reachable ? {} : { detail: failure.message }) });
      if (reachable) items.push({ what: 'token authenticates', ok: false, detail: failure.message });
      return { ok: false, items };
    }
    const wanted = SKILLS_PRIVILEGES;
    try {
      const answer = await client.security.hasPrivileges({
        cluster: [...wanted.cluster],
        index: wanted.index.map((entry) => ({ names: [...entry.names], privileges: [...entry.privileges] })),
      });
      for (const privilege of wanted.cluster) {
        items.push({ what: `cluster privilege ${privilege}`, ok: answer.cluster[privilege] === true });
      }
      for (const entry of wanted.index) {
        for (const name of entry.names) {
          for (const privilege of entry.privileges) {
            items.push({ what: `index privilege ${privilege} on ${name}`, ok: answer.index[name]?.[privilege] === true });
          }
        }
      }
    } catch (error) {
      items.push({ what: 'privileges could be checked', ok: false, detail: describeFailure(error, connection.url, 'checking privileges', 'API token').message });
    }
    return { ok: items.every((item) => item.ok), items };
  } finally {
    await client.close();
  }
}
