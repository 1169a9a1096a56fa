import { parse } from 'yaml';
import { configProblems } from '@probekit/exporter';
import { parseSpec } from '../../src/model';
import { CLUSTER_EXISTING_SECRETS_DIR, CLUSTER_SECRETS_DIR, renderExporterConfig, renderExporterConfigYaml } from '../../src/render';
import { DOCUMENTED_HTTP_SETTINGS, fullEnv, fullSpec, SECRET_VALUES } from '../fixtures/specs';

const spec = parseSpec(fullSpec, { env: fullEnv });

describe("the exporter's config file", () => {
  it('is a config the exporter schema accepts', () => {
    expect(configProblems(parse(renderExporterConfigYaml(spec)))).toEqual([]);
  });

  it('renders the documented module as documented', () => {
    expect(parse(renderExporterConfigYaml(spec)).modules.http_2xx).toEqual({
      prober: 'http',
      timeout: '5s',
      http: { ...DOCUMENTED_HTTP_SETTINGS, method: 'GET' },
    });
  });

  it('moves secret headers to files and keeps plain ones', () => {
    const { config, secretFiles } = renderExporterConfig(spec);
    expect(config.modules.http_2xx_with_header.http).toMatchObject({
      headers: { 'Accept-Language': 'fr-CH' },
      http_headers: { Authentication: { files: [`${CLUSTER_SECRETS_DIR}/http_2xx_with_header.authentication`] } },
    });
    expect(config.modules.partner_api.http).toMatchObject({
      headers: { 'X-Client': 'probekit' },
      http_headers: { 'X-Api-Key': { files: [`${CLUSTER_EXISTING_SECRETS_DIR}/partner-credentials/api-key`] } },
    });
    expect(secretFiles.map((file) => [file.module, file.field.at(-1), file.fileName])).toEqual([
      ['http_2xx_with_header', 'Authentication', 'http_2xx_with_header.authentication'],
      ['partner_api', 'X-Api-Key', 'partner_api.x-api-key'],
    ]);
  });

  it('holds no secret value', () => {
    const text = renderExporterConfigYaml(spec);
    for (const value of Object.values(SECRET_VALUES)) expect(text).not.toContain(value);
    expect(text).not.toContain('fromEnv');
  });
});
