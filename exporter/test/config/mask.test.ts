import fc from 'fast-check';
import { parseConfig } from '../../src/config/load';
import { maskedConfigYaml, maskUrl, urlSecrets } from '../../src/config/mask';

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

/** Text with no character that ends a URL's authority: what a user name or password may be written with. */
const authorityText = (min: number) => fc.string({ unit: 'binary', minLength: min, maxLength: 24 }).filter((text) => !/[/\\?#]/.test(text));

describe('passwords in targets and proxy URLs, masked as written', () => {
  it('masks the password of the target that showed it before (a stray % made decoding fail, and masking failed open)', () => {
    expect(maskUrl('http://alice:hunter2@host/ok?discount=50%off')).toBe('http://alice:<secret>@host/ok?discount=50%off');
  });

  it.each([
    ['http://alice:hunter2@host/a%zz', 'http://alice:<secret>@host/a%zz'],
    ['http://alice:hun ter2@host/', 'http://alice:<secret>@host/'],
    ['http://alice:hunter2@host\u0000/', 'http://alice:<secret>@host\u0000/'],
    ['alice:hunter2@host:80', 'alice:<secret>@host:80'],
    ['http:alice:hunter2@host', 'http:<secret>@host'],
    ['http:\\\\alice:hunter2@host', 'http:\\\\alice:<secret>@host'],
    ['http://alice:hunter2@[::1%25lo]:80/', 'http://alice:<secret>@[::1%25lo]:80/'],
    ['http://alice:p@ss:w@rd@host/?next=https://bob:pw2@other/', 'http://alice:<secret>@host/?next=https://bob:<secret>@other/'],
    ['http://alice:hun%zzter2@host', 'http://alice:<secret>@host'],
    ['http://alice@host:8080/path?email=a@b', 'http://alice@host:8080/path?email=a@b'],
    ['https://host:8443/index.html', 'https://host:8443/index.html'],
  ])('%j is shown as %j', (written, shown) => {
    expect(maskUrl(written)).toBe(shown);
  });

  it('never shows the password, in any form, whatever surrounds it', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 12 }),
        authorityText(0).filter((user) => !user.includes(':')),
        authorityText(1),
        fc.string({ unit: 'binary', maxLength: 24 }).filter((host) => !/[/\\?#@]/.test(host)),
        fc.string({ unit: 'binary', maxLength: 40 }).map((rest) => `/${rest}`),
        (scheme, user, password, host, rest) => {
          const text = `${scheme}//${user}:${password}@${host}${rest}`;
          const forms = urlSecrets(text);
          // A password that the rest of the text spells out anyway cannot be told apart from it.
          fc.pre(!`${scheme}//${user}:@${host}${rest}<secret>`.includes(password));
          const shown = maskUrl(text);
          expect(shown).not.toContain(password);
          expect(shown).toContain(`${user}:<secret>@${host}`);
          expect(forms).toContain(password);
        },
      ),
      { numRuns: 500 },
    );
  });
});
