/** The problems the exporter's loader reports for config text, one line each, as `--config.check` prints them. */
import { ConfigError, parseConfig } from '../../src/config/load';

/** Every problem line of `text` (read as the file blackbox.yml); none when the config loads. */
export function configProblems(text: string): string[] {
  try {
    parseConfig(text, 'blackbox.yml');
  } catch (error) {
    if (error instanceof ConfigError) return error.message.split('\n');
    throw error;
  }
  return [];
}

/** The config with one module `m` of `prober` and its section written on one line (`dns: { query_name: a }`). */
export function oneModule(prober: string, section: string): string {
  return `modules:\n  m:\n    prober: ${prober}\n    ${section}\n`;
}
