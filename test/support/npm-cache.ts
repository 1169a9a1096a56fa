/**
 * Tests talk only to loopback, so a test that installs packages does it offline, from npm's cache; .ci/run fills
 * the cache during its install phase. Where the cache lacks a package such a test skips (visibly), except with
 * PROBEKIT_REQUIRE_INTEGRATION=1 (as in CI), where it fails: CI filled the cache, so missing means that step broke.
 */
import { execFileSync } from 'node:child_process';
import { integrationRequired } from './integration';

/** Which of `specs` (exact `name@version`) have no tarball in npm's cache. */
export function missingFromNpmCache(specs: readonly string[]): string[] {
  const keys = execFileSync('npm', ['cache', 'ls', ...specs], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: npmEnv() }).split('\n');
  return specs.filter((spec) => {
    const at = spec.lastIndexOf('@');
    const [name, version] = [spec.slice(0, at), spec.slice(at + 1)];
    if (at <= 0 || !/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`${spec}: name an exact version (name@1.2.3)`);
    const tarball = `/${name}/-/${name.split('/').pop()}-${version}.tgz`;
    return !keys.some((key) => key.endsWith(tarball));
  });
}

/** `describe` that runs when npm's cache holds every one of `specs`, and skips (visibly) otherwise. */
export function describeWithNpmCache(specs: readonly string[]): jest.Describe {
  const missing = missingFromNpmCache(specs);
  if (missing.length === 0) return describe;
  const message = `npm's cache lacks ${missing.join(', ')}: fill it as .ci/run does, with npm install --prefix "$(mktemp -d)" --no-save $(node --import tsx test/package/consumer-dependencies.ts)`;
  if (integrationRequired) throw new Error(`${message}; PROBEKIT_REQUIRE_INTEGRATION=1 requires them`);
  process.stderr.write(`skipping: ${message}\n`);
  return describe.skip;
}

/**
 * The environment for a child npm: this one without the settings an outer `npm test` passes down to its scripts
 * (npm_config_local_prefix would point the child at this repository instead of its own folder), keeping only
 * where the cache and the user's configuration are.
 */
export function npmEnv(overrides: Record<string, string> = {}): Record<string, string> {
  const kept = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig', 'npm_config_registry']);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && (!/^npm_/i.test(name) || kept.has(name.toLowerCase()))) env[name] = value;
  }
  return { ...env, ...overrides };
}
