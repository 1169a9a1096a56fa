/**
 * What the consumer test's project installs from the registry, in one place. The test installs the packed probekit
 * and exporter with these, offline, from npm's cache; .ci/run fills that cache in its install phase by running this
 * file, which prints them one `name@version` a line for an `npm install` into a throwaway folder:
 *
 *   npm install --prefix "$(mktemp -d)" --no-save $(node --import tsx test/package/consumer-dependencies.ts)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * The lowest versions the root package's peer ranges allow that the registry has (`npm view cdk8s versions`; the
 * registry lacks some versions), so that the test synthesizes with a cdk8s other than the one we develop with.
 * cdk8s-plus-28 starts at 2.5.6: 2.3.17 has no SeccompProfileType, which the exporter's Deployment sets.
 */
export const LOWEST_PEERS: Readonly<Record<string, string>> = { cdk8s: '2.68.12', 'cdk8s-plus-28': '2.5.6', constructs: '10.3.0' };

/** What a TypeScript user of the constructs has beside them (the test type-checks with the repository's tsc). */
export const CONSUMER_DEV_DEPENDENCIES: Readonly<Record<string, string>> = { '@types/node': '20.19.43' };

interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

/** package.json of the root package (`.`) or of a workspace (`exporter`). */
export function readPackageJson(folder: '.' | 'exporter'): PackageJson {
  return JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as PackageJson;
}

/** Every `name@version` the consumer's install takes from the registry: ours above, and the packed packages' own. */
export function consumerRegistrySpecs(): string[] {
  const packed = [readPackageJson('.'), readPackageJson('exporter')];
  const ours = new Set(packed.map((pkg) => pkg.name));
  const specs = [...packed.flatMap((pkg) => Object.entries(pkg.dependencies ?? {})), ...Object.entries(LOWEST_PEERS), ...Object.entries(CONSUMER_DEV_DEPENDENCIES)]
    .filter(([name]) => !ours.has(name))
    .map(([name, version]) => `${name}@${version}`);
  return [...new Set(specs)];
}

if (require.main === module) process.stdout.write(`${consumerRegistrySpecs().join('\n')}\n`);
