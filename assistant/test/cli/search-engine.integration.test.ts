/**
 * `probekit search-engine create-key` and `check`, run in-process against the Elasticsearch contract server
 * (assistant/test/support/elasticsearch.ts) as 7.17, 8.x and 9.x. No real Elasticsearch can run here; the server follows its
 * documented REST contract, refusing the media types each version refuses, over TLS with a CA the test makes. Each
 * command's --help, and the flag pairs refused before any request, need no engine.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { renderSearchEngineSecret } from 'probekit/cli';
import { ContractElasticsearch, CONTRACT_VERSIONS } from '../support/elasticsearch';
import { helpNotes, runCli } from '../../../test/support/cli';
import { describeWithBinaries } from '../../../test/support/integration';
import { makeTlsPem, OPENSSL } from '../../../exporter/loopback/tls-fixtures';

// The tests' TLS certificates are made with openssl (Node has no API to issue one).
describeWithBinaries([OPENSSL]).each(CONTRACT_VERSIONS)('probekit search-engine on Elasticsearch %s', (version) => {
  const PASSWORD = 'S3cret-not-to-print';
  const dir = mkdtempSync(join(tmpdir(), 'probekit-cli-'));
  const caFile = join(dir, 'ca.pem');
  const passwordFile = join(dir, 'password');
  writeFileSync(passwordFile, `${PASSWORD}\n`);

  const users = {
    elastic: { password: PASSWORD, roles: { superuser: { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] } } },
    reader: { password: PASSWORD, roles: { logs_reader: { cluster: [], index: [{ names: ['logs-*'], privileges: ['read'] }] } } },
  };

  let es: ContractElasticsearch;
  beforeAll(async () => {
    const pki = makeTlsPem();
    writeFileSync(caFile, pki.ca);
    es = await ContractElasticsearch.start({ users, pki, version });
  });
  afterAll(() => es.close());

  const createKey = (...extra: string[]) =>
    runCli(['search-engine', 'create-key', '--url', es.url, '--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name', 'assistant', '--ca-file', caFile, ...extra], { ES_PASSWORD: PASSWORD });

  function expectNoPassword(result: { stdout: string; stderr: string }) {
    expect(result.stdout).not.toContain(PASSWORD);
    expect(result.stderr).not.toContain(PASSWORD);
  }

  describe('search-engine create-key', () => {
    it('prints the encoded key by default, created with the read-only preset', async () => {
      const result = await createKey();
      expect(result).toMatchObject({ code: 0, stderr: '' });
      const encoded = result.stdout.trim();
      const [id, apiKey] = Buffer.from(encoded, 'base64').toString().split(':');
      expect(es.apiKeys.get(id!)).toMatchObject({ apiKey, name: 'assistant', roleDescriptors: { probekit_assistant_read_only: expect.anything() } });
      expectNoPassword(result);
    });

    it("--output secret with --role all-access: the documented request, and a Secret in the cluster form's shape that works", async () => {
      es.requests.splice(0);
      const result = await runCli([
        'search-engine',
        'create-key',
        '--url',
        es.url,
        '--username',
        'elastic',
        '--password-file',
        passwordFile,
        '--name',
        'assistant',
        '--role',
        'all-access',
        '--ca-file',
        caFile,
        '--output',
        'secret',
        '--namespace',
        'monitoring',
      ]);
      expect(result.code).toBe(0);
      expect(es.requests[0]!.body).toMatchObject({ name: 'assistant', role_descriptors: { all_access: { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] } }, expiration: '90d' });
      const secret = parse(result.stdout) as { stringData: Record<string, string> };
      const token = secret.stringData['api-token']!;
      expect(secret).toEqual(renderSearchEngineSecret({ namespace: 'monitoring', url: es.url, apiToken: token }));

      // The Secret's two values are the integration settings: `check` passes with them.
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, token);
      const check = await runCli(['search-engine', 'check', '--url', secret.stringData.url!, '--api-token-file', tokenFile, '--ca-file', caFile]);
      expect(check.code).toBe(0);
    });

    it('--output json prints the response object of the create request', async () => {
      const result = await createKey('--output', 'json', '--expiration', '7d');
      expect(result.code).toBe(0);
      const key = JSON.parse(result.stdout) as Record<string, unknown>;
      expect(Object.keys(key).sort()).toEqual(['api_key', 'encoded', 'expiration', 'id', 'name']);
      expectNoPassword(result);
    });

    it("--indices sets the read-only preset's patterns; --expiration never makes a key that does not expire", async () => {
      const result = await createKey('--output', 'json', '--indices', 'app-logs-*,audit-*', '--expiration', 'never');
      const key = JSON.parse(result.stdout) as { id: string; expiration?: number };
      expect(key.expiration).toBeUndefined();
      expect(es.apiKeys.get(key.id)!.roleDescriptors).toEqual({
        probekit_assistant_read_only: { cluster: ['monitor'], index: [{ names: ['app-logs-*', 'audit-*'], privileges: ['read', 'view_index_metadata', 'monitor'] }] },
      });
      const refused = await createKey('--role', 'all-access', '--indices', 'logs-*');
      expect(refused).toEqual({ code: 2, stdout: '', stderr: 'error: --indices applies to --role read-only: the all-access preset is the documented role on every index\n' });
    });

    it('--insecure works without the CA and warns', async () => {
      const result = await runCli(['search-engine', 'create-key', '--url', es.url, '--username', 'elastic', '--password-env', 'P', '--name', 'k', '--insecure'], { P: PASSWORD });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("warning: --insecure: the search engine's TLS certificate is not verified; whoever sits on the path can read what is sent\n");
    });

    it.each([
      [['--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name', 'n'], "error: --url is required: the search engine's URL, e.g. https://elasticsearch.example:9200\n"],
      [
        ['--url', 'https://127.0.0.1:1', '--username', 'elastic', '--password-env', 'UNSET', '--name', 'n'],
        'error: --password-env: environment variable UNSET is not set or empty; export it with the password\n',
      ],
      [
        ['--url', 'https://127.0.0.1:1', '--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name', 'n', '--role', 'admin'],
        'error: --role admin: not a preset; use all-access or read-only\n',
      ],
      [
        ['--url', 'https://127.0.0.1:1', '--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name', 'n', '--output', 'secret'],
        'error: --output secret needs --namespace NS: the namespace the Secret goes to\n',
      ],
      [
        ['--url', 'https://127.0.0.1:1', '--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name', 'n', '--password', 'x'],
        'error: --password: unknown flag; did you mean --password-env or --password-file?\n',
      ],
      [['--url', '127.0.0.1:19201', '--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name', 'n'], 'error: --url 127.0.0.1:19201: not a URL; write https://127.0.0.1:19201\n'],
      [
        ['--url', 'ftp://127.0.0.1:19201', '--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name', 'n'],
        'error: --url ftp://127.0.0.1:19201: protocol ftp: is not supported; use https:// (or http:// for an engine without TLS)\n',
      ],
      [
        ['--url', 'elastic:S3cret-not-to-print@127.0.0.1:19201', '--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name', 'n'],
        'error: --url: holds credentials; pass them separately (--username with --password-env/--password-file, or the API token)\n',
      ],
      [
        ['--url', 'https://127.0.0.1:1', '--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name', 'n', '--output', 'yaml'],
        'error: --output yaml: not a form of output; use encoded, json, secret\n',
      ],
      [['--url', 'https://127.0.0.1:1', '--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name', 'n', '--insecure=yes'], 'error: --insecure: takes no value; write --insecure alone\n'],
      [['--url', 'https://127.0.0.1:1', '--username', 'elastic', '--password-env', 'ES_PASSWORD', '--name'], 'error: --name: needs a value (--name VALUE)\n'],
    ])('usage error %#: one line, exit 2', async (args, message) => {
      const result = await runCli(['search-engine', 'create-key', ...args], { ES_PASSWORD: PASSWORD });
      expect(result).toEqual({ code: 2, stdout: '', stderr: message });
      expectNoPassword(result);
    });

    it.each([
      ['401', ['--password-env', 'WRONG'], /^error: creating the API key failed: .* did not accept the user name and password \(401\): security_exception: unable to authenticate user \[elastic\]/],
      [
        '403',
        ['--password-env', 'ES_PASSWORD', '--username', 'reader'],
        /^error: creating the API key failed: .* refused it to these credentials \(403\): security_exception: action \[cluster:admin\/xpack\/security\/api_key\/create\] is unauthorized for user \[reader\]/,
      ],
      [
        '400',
        ['--password-env', 'ES_PASSWORD', '--expiration', 'soon'],
        /^error: creating the API key failed: .* rejected the request \(400\): x_content_parse_exception: .*failed to parse setting \[expiration\] with value \[soon\]/,
      ],
      ['tls', ['--password-env', 'ES_PASSWORD', '--ca-file', '/dev/null'], /^error: creating the API key failed: TLS verification of .* failed/],
    ])('%s: one line, exit 1, no password', async (_name, extra, message) => {
      const args = ['search-engine', 'create-key', '--url', es.url, '--username', 'elastic', '--name', 'n', '--ca-file', caFile, ...extra];
      const result = await runCli(args, { ES_PASSWORD: PASSWORD, WRONG: 'wrong-password' });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expectNoPassword(result);
    });

    it('connection refused: one line, exit 1', async () => {
      const result = await runCli(['search-engine', 'create-key', '--url', 'https://127.0.0.1:1', '--username', 'elastic', '--password-env', 'P', '--name', 'n'], { P: PASSWORD });
      expect(result).toEqual({
        code: 1,
        stdout: '',
        stderr: 'error: creating the API key failed: connection to https://127.0.0.1:1 refused; check the URL and port and that the engine is running\n',
      });
    });
  });

  describe('search-engine check', () => {
    const check = (token: string, ...extra: string[]) => runCli(['search-engine', 'check', '--url', es.url, '--api-token-env', 'TOKEN', '--ca-file', caFile, ...extra], { TOKEN: token });

    it("passes for a token with the skills' privileges, names the key and the engine's version", async () => {
      const { id, encoded } = es.addApiKey('elastic', 'assistant', {});
      es.requests.splice(0);
      const result = await check(encoded);
      expect(result.stdout).toBe(
        [
          `ok      reachable: ${es.url} answers as Elasticsearch ${version}`,
          `ok      token authenticates as API key "assistant" (id ${id}) of user elastic`,
          'ok      cluster privilege monitor',
          'ok      index privileges read, view_index_metadata, monitor on logs-*',
          'ok      index privileges read, view_index_metadata, monitor on filebeat-*',
          'ok      index privileges read, view_index_metadata, monitor on logstash-*',
          'The assistant has what it needs.',
          '',
        ].join('\n'),
      );
      expect(result.code).toBe(0);
      expect(es.requests.map((r) => `${r.method} ${r.path} ${r.headers.authorization}`)).toEqual([
        `GET / ApiKey ${encoded}`,
        `GET /_security/_authenticate ApiKey ${encoded}`,
        `POST /_security/user/_has_privileges ApiKey ${encoded}`,
      ]);
      expect(es.requests[2]!.body).toEqual({ cluster: ['monitor'], index: [{ names: ['logs-*', 'filebeat-*', 'logstash-*'], privileges: ['read', 'view_index_metadata', 'monitor'] }] });
      expect(es.requests[2]!.headers['content-type']).toBe(`application/vnd.elasticsearch+json; compatible-with=${version.split('.')[0]}`);
      expect(result.stdout + result.stderr).not.toContain(encoded);
    });

    it('names what a poor token lacks, for the patterns given, and exits 1', async () => {
      const { encoded } = es.addApiKey('elastic', 'narrow', { narrow: { cluster: [], index: [{ names: ['*'], privileges: ['read'] }] } });
      const result = await check(encoded, '--indices', 'logs-*,app-*');
      expect(result.code).toBe(1);
      expect(result.stdout.split('\n').filter((line) => line.startsWith('MISSING'))).toEqual([
        'MISSING cluster privilege monitor',
        'MISSING index privileges view_index_metadata, monitor on logs-*',
        'MISSING index privileges view_index_metadata, monitor on app-*',
      ]);
      expect(result.stdout).toContain('(version not readable without the monitor privilege)');
      expect(result.stdout + result.stderr).not.toContain(encoded);
    });

    it('a key is limited by its owner: a broad key of a narrow user is poor too', async () => {
      const { encoded } = es.addApiKey('reader', 'broad', { all_access: { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] } });
      const result = await check(encoded);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('MISSING index privileges read, view_index_metadata, monitor on filebeat-*');
    });

    it('a token that does not authenticate', async () => {
      const wrong = Buffer.from('nokey:nosecret').toString('base64');
      const result = await check(wrong);
      expect(result.code).toBe(1);
      expect(result.stdout + result.stderr).not.toContain(wrong);
      expect(result.stdout).toBe(
        [
          `ok      reachable: ${es.url}`,
          `MISSING token authenticates: authenticating with the API token failed: ${es.url} did not accept the API token (401): security_exception: unable to authenticate with provided credentials and anonymous access is not allowed for this request`,
          'The assistant cannot work with these settings: see MISSING above.',
          '',
        ].join('\n'),
      );
    });

    it('an engine that cannot be reached', async () => {
      const result = await runCli(['search-engine', 'check', '--url', 'https://127.0.0.1:1', '--api-token-env', 'TOKEN'], { TOKEN: 'x' });
      expect(result.code).toBe(1);
      expect(result.stdout.split('\n')[0]).toBe(
        'MISSING reachable: https://127.0.0.1:1: authenticating with the API token failed: connection to https://127.0.0.1:1 refused; check the URL and port and that the engine is running',
      );
    });
  });
});

describe('--help', () => {
  const TLS = { '--insecure': 'not with --ca-file', '--ca-file': 'not with --insecure; default: the CAs Node trusts, with NODE_EXTRA_CA_CERTS' };

  it.each([
    [
      'create-key',
      {
        '--url': 'required',
        '--username': 'required',
        '--password-env': 'required: this or --password-file',
        '--password-file': 'required: this or --password-env',
        '--name': 'required',
        '--role': 'default: read-only',
        '--indices': 'default: logs-*,filebeat-*,logstash-*',
        '--expiration': 'default: 90d',
        ...TLS,
        '--output': 'default: encoded',
        '--namespace': 'default: none; needed with --output secret',
        '--help': null,
      },
      'usage: probekit search-engine create-key --url URL --username USER (--password-env VAR | --password-file FILE) --name NAME [--role PRESET] [--indices PATTERNS] [--expiration TIME] [--insecure | --ca-file FILE] [--output FORM] [--namespace NS]\n',
    ],
    [
      'check',
      {
        '--url': 'required',
        '--api-token-env': 'required: this or --api-token-file',
        '--api-token-file': 'required: this or --api-token-env',
        '--indices': 'default: logs-*,filebeat-*,logstash-*',
        ...TLS,
        '--help': null,
      },
      'usage: probekit search-engine check --url URL (--api-token-env VAR | --api-token-file FILE) [--indices PATTERNS] [--insecure | --ca-file FILE]\n',
    ],
  ])('probekit search-engine %s --help: exit 0, each flag on a line with its default or that it is required, and the exit codes', async (sub, notes, usage) => {
    const result = await runCli(['search-engine', sub, '--help']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout.startsWith(usage)).toBe(true);
    expect(helpNotes(result.stdout)).toEqual(notes);
    expect(result.stdout).toMatch(/\n\nexit codes: 0 [^\n]+; 1 [^\n]+; 2 [^\n]+\n$/);
  });
});

describe('flag pairs: a secret given one way, and one of the two required', () => {
  const KEY = ['create-key', '--url', 'https://127.0.0.1:1', '--username', 'elastic', '--name', 'n'];
  const CHECK = ['check', '--url', 'https://127.0.0.1:1'];

  it.each([
    [[...KEY], "error: --password-env or --password-file is required: the environment variable holding the user's password, or a file holding the user's password\n"],
    [[...KEY, '--password-env', 'P', '--password-file', 'password'], 'error: --password-env and --password-file exclude each other: give one of them\n'],
    [[...CHECK], 'error: --api-token-env or --api-token-file is required: the environment variable holding the API token, or a file holding the API token\n'],
    [[...CHECK, '--api-token-env', 'T', '--api-token-file', 'token'], 'error: --api-token-env and --api-token-file exclude each other: give one of them\n'],
    [[...CHECK, '--api-token-env', 'T', '--insecure', '--ca-file', 'ca.pem'], 'error: --insecure and --ca-file exclude each other: give one of them\n'],
  ])('%j: exit 2, one line, before any request', async (args, message) => {
    expect(await runCli(['search-engine', ...args], { P: 'S3cret-not-to-print', T: 'token' })).toEqual({ code: 2, stdout: '', stderr: message });
  });
});
