/**
 * What the assistant needs of its integration settings (URL and API token, entered in its integration card): the engine is reachable, runs a
 * supported version, the API token authenticates, and it holds the privileges the skills use on the log indices.
 * Each is reported, so that a user sees all that is missing at once rather than one failure at a time.
 */
import { LOG_INDEX_PATTERNS, skillsRole } from './api-key';
import { connectSearchEngine, describeFailure, displayUrl, SUPPORTED_VERSIONS, type SearchEngine, type SearchEngineConnection } from './connection';

export interface CheckItem {
  readonly what: string;
  readonly ok: boolean;
  readonly detail?: string;
}

export interface CheckReport {
  readonly ok: boolean;
  readonly items: readonly CheckItem[];
}

/** Checks the settings; `indices` are the patterns the skills will read (the read-only preset's by default). */
export async function checkIntegration(connection: SearchEngineConnection, apiToken: string, indices: readonly string[] = LOG_INDEX_PATTERNS): Promise<CheckReport> {
  const items: CheckItem[] = [];
  const where = displayUrl(connection.url);
  let engine: SearchEngine;
  try {
    engine = await connectSearchEngine(connection, { apiToken }, 'authenticating with the API token');
  } catch (error) {
    const failure = describeFailure(error, connection.url, 'authenticating with the API token', 'API token');
    const reachable = failure.failure === 'unauthorized' || failure.failure === 'unsupported-version';
    items.push({ what: `reachable: ${where}`, ok: reachable, ...(reachable ? {} : { detail: failure.message }) });
    if (failure.failure === 'unsupported-version') items.push({ what: `a supported version (${SUPPORTED_VERSIONS})`, ok: false, detail: failure.message });
    else if (reachable) items.push({ what: 'token authenticates', ok: false, detail: failure.message });
    return { ok: false, items };
  }
  const { client, version } = engine;
  try {
    items.push({ what: `reachable: ${where} answers as Elasticsearch ${version?.number ?? '(version not readable without the monitor privilege)'}`, ok: true });
    try {
      const me = await client.security.authenticate();
      const who = me.api_key ? `API key "${me.api_key.name ?? ''}" (id ${me.api_key.id}) of user ${me.username}` : `user ${me.username}`;
      items.push({ what: `token authenticates as ${who}`, ok: true });
    } catch (error) {
      items.push({ what: 'token authenticates', ok: false, detail: describeFailure(error, connection.url, 'authenticating with the API token', 'API token').message });
      return { ok: false, items };
    }
    const wanted = skillsRole(indices);
    try {
      const answer = await client.security.hasPrivileges({
        cluster: [...wanted.cluster],
        index: wanted.index.map((entry) => ({ names: [...entry.names], privileges: [...entry.privileges] })),
      });
      for (const privilege of wanted.cluster) {
        items.push({ what: `cluster privilege ${privilege}`, ok: answer.cluster[privilege] === true });
      }
      // One line per index pattern: what it lacks, or that it has all.
      for (const entry of wanted.index) {
        for (const name of entry.names) {
          const lacking = entry.privileges.filter((privilege) => answer.index[name]?.[privilege] !== true);
          items.push({ what: `index privileges ${(lacking.length > 0 ? lacking : entry.privileges).join(', ')} on ${name}`, ok: lacking.length === 0 });
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
