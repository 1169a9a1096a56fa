import { parseConfig } from '../../src/config/load';
import { maskedConfigYaml } from '../../src/config/mask';

describe('the config as /config shows it', () => {
  it('masks secrets', () => {
    const config = parseConfig(
      `modules:
  m:
    prober: http
    http:
      headers:
        Authentication: Bearer s3cr3t-token
        Accept-Language: en-US
      basic_auth:
        username: user
        password: hunter2
      proxy_url: http://proxy:pa55@127.0.0.1:3128
      http_headers:
        X-Api-Key:
          values: [k3y-value]
          secrets: [another-s3cret]
`,
      'blackbox.yml',
    );
    const shown = maskedConfigYaml(config);
    for (const secret of ['s3cr3t-token', 'hunter2', 'pa55', 'k3y-value', 'another-s3cret']) expect(shown).not.toContain(secret);
    expect(shown).toContain('Accept-Language: en-US');
    expect(shown).toContain('username: user');
    expect(shown).toContain('<secret>');
  });
});
