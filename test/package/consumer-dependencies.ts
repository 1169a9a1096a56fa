/**
 * What the consumer test's app installs from the registry, in one place. The test installs the packed packages with
 * these, offline, from npm's cache; .ci/run fills that cache in its install phase by running this file, which prints
 * them one `name@version` a line for an `npm install` into a throwaway folder:
 *
 *   npm install --prefix "$(mktemp -d)" --no-save $(node --import tsx test/package/consumer-dependencies.ts)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The app `cdk8s init typescript-app` makes, from the cdk8s-cli this repository develops with. */
export const TEMPLATE = join(ROOT, 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app');

/**
 * The app's own cdk8s, cdk8s-plus-28 (our peer, where the template has cdk8s-plus-33) and constructs: the lowest
 * versions our peer ranges allow that the registry has (`npm view cdk8s versions`; the registry lacks some versions),
 * so that the test builds with a cdk8s other than the one we develop with. cdk8s-plus-28 starts at 2.5.6: 2.3.17 has
 * no SeccompProfileType, which the exporter's Deployment sets.
 */
export const LOWEST_PEERS: Readonly<Record<string, string>> = { cdk8s: '2.68.12', 'cdk8s-plus-28': '2.5.6', constructs: '10.3.0' };

interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

/** package.json of the root package (`.`), of a workspace (`exporter`), or of the template (TEMPLATE). */
export function readPackageJson(folder: string): PackageJson {
  return JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as PackageJson;
}

/**
 * The template's devDependencies, each at the version its range gives today (`npm view <name>@<range> version`),
 * pinned so that the offline install takes what .ci/run cached; cdk8s-cli at the version whose template this is. The
 * test holds the names to the template's and each version to its range.
 */
export const TEMPLATE_DEV_DEPENDENCIES: Readonly<Record<string, string>> = {
  'cdk8s-cli': readPackageJson('.').devDependencies!['cdk8s-cli'],
  '@types/node': '14.18.63',
  '@types/jest': '29.5.14',
  jest: '29.7.0',
  'ts-jest': '29.4.15',
  typescript: '5.9.3',
  'ts-node': '10.9.2',
};

/** Every `name@version` the consumer's install takes from the registry: the app's own, and the packed packages'. */
export function consumerRegistrySpecs(): string[] {
  const packed = [readPackageJson('.'), readPackageJson('exporter'), readPackageJson('assistant')];
  const ours = new Set(packed.map((pkg) => pkg.name));
  const specs = [...packed.flatMap((pkg) => Object.entries(pkg.dependencies ?? {})), ...Object.entries(LOWEST_PEERS), ...Object.entries(TEMPLATE_DEV_DEPENDENCIES)]
    .filter(([name]) => !ours.has(name))
    .map(([name, version]) => `${name}@${version}`);
  return [...new Set(specs)];
}

if (require.main === module) process.stdout.write(`${consumerRegistrySpecs().join('\n')}\n`);
