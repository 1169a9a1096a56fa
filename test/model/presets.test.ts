/** The three documented modules, as the preset functions build them and as the spec expands them. */
import { http2xx, http2xxWithHeader, httpPost2xx } from '../../src/model';
import { DOCUMENTED_HTTP_SETTINGS } from '../fixtures/specs';

describe('the documented modules', () => {
  const base = DOCUMENTED_HTTP_SETTINGS;

  it('http_2xx: GET, no headers, no body', () => {
    expect(http2xx()).toEqual({ prober: 'http', timeout: '5s', http: { ...base, method: 'GET' } });
  });

  it('http_2xx_with_header: Authentication Bearer token by reference, and Accept-Language', () => {
    expect(http2xxWithHeader({ accessToken: { fromEnv: 'ACCESS_TOKEN' }, acceptLanguage: 'de-DE' })).toEqual({
      prober: 'http',
      timeout: '5s',
      http: { ...base, method: 'GET', headers: { Authentication: { fromEnv: 'ACCESS_TOKEN', prefix: 'Bearer ' }, 'Accept-Language': 'de-DE' } },
    });
  });

  it('http_post_2xx: POST with a JSON content type and the chosen body', () => {
    expect(httpPost2xx({ body: '{"a":1}' })).toEqual({
      prober: 'http',
      timeout: '5s',
      http: { ...base, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' },
    });
  });

  it('presets do not share state', () => {
    const first = http2xx();
    (first.http!.valid_http_versions as string[]).push('HTTP/3.0');
    expect(http2xx().http!.valid_http_versions).toEqual(['HTTP/1.1', 'HTTP/2.0']);
  });
});
