/**
 * The documented example, synthesized when no spec file is given: the documented blackbox-exporter scrape job probing two
 * public sites with the documented http_2xx module. It needs no secret, so it synthesizes anywhere.
 * examples/probekit.yaml is the same spec as a file (a test keeps them equal).
 */
import type { SpecInput } from './spec';

export const documentedExample: SpecInput = {
  namespace: 'monitoring',
  modules: {
    http_2xx: { preset: 'http_2xx' },
  },
  jobs: [
    {
      name: 'blackbox-exporter',
      module: 'http_2xx',
      targets: ['https://example.com', 'https://prometheus.io'],
    },
  ],
};
