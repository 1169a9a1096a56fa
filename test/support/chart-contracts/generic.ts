/**
 * The generic agent chart of the product spec (its table of agent configuration locations): the agent's section
 * `<chartKey>` holds `extraScrapeConfigs`, a list of scrape jobs, and the exporter's section `<exporterKey>` holds
 * `enabled`. There is no published chart and no schema to read; this contract states the spec's words.
 */
import type { AnySchema } from 'ajv';
import { only } from './index';

export function genericChartContract(chartKey: string, exporterKey: string): AnySchema {
  return only(
    {
      [chartKey]: only({ extraScrapeConfigs: { type: 'array', items: { type: 'object', required: ['job_name'], properties: { job_name: { type: 'string', minLength: 1 } } } } }, [
        'extraScrapeConfigs',
      ]),
      [exporterKey]: only({ enabled: { type: 'boolean' } }, ['enabled']),
    },
    [chartKey, exporterKey],
  );
}
