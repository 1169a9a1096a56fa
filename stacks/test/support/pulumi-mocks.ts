/**
 * Runs the Pulumi program under Pulumi's own mocks (`pulumi.runtime.setMocks`): the Pulumi CLI cannot be
 * installed here (it downloads its engine binary), so no engine runs, and tests assert on what the program
 * registers, resource by resource, with the inputs the engine would receive.
 */
import * as pulumi from '@pulumi/pulumi';
import { MockMonitor } from '@pulumi/pulumi/runtime/mocks';

export interface RegisteredResource {
  readonly type: string;
  readonly name: string;
  readonly urn: string;
  /** Inputs as the engine would receive them; a secret is `{ [SECRET_SIG_KEY]: SECRET_SIG, value }`. */
  readonly inputs: Record<string, unknown>;
  /** `urn::id` of the provider the resource goes through ('' for the default provider). */
  readonly provider: string;
  readonly custom: boolean;
}

export const SECRET_SIG_KEY = pulumi.runtime.specialSigKey;
export const SECRET_SIG = pulumi.runtime.specialSecretSig;

/** Answers of the mocked engine for one resource; the default echoes the inputs. */
export type MockState = (args: pulumi.runtime.MockResourceArgs) => Record<string, unknown> | undefined;

export interface ProgramRun<Exports> {
  readonly resources: readonly RegisteredResource[];
  readonly exports: Exports;
}

/**
 * Sets `config` (with `secretKeys` marked secret), loads the program fresh, and waits until every
 * resource it creates is registered. With `preview`, outputs the mocked engine leaves out are unknown, as
 * in `pulumi preview`.
 */
export async function runProgram<Exports>(
  programPath: string,
  config: Record<string, string>,
  secretKeys: readonly string[],
  state: MockState = () => undefined,
  preview = false,
): Promise<ProgramRun<Exports>> {
  const registered: Omit<RegisteredResource, 'urn'>[] = [];
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.push({ type: args.type, name: args.name, inputs: args.inputs, provider: args.provider ?? '', custom: args.custom ?? false });
        return { id: `${args.name}-id`, state: { ...args.inputs, ...state(args) } };
      },
      call(args) {
        throw new Error(`the program made an unexpected call to ${args.token}`);
      },
    },
    'probekit',
    'test',
    preview,
  );
  const monitor = pulumi.runtime.getMonitor() as unknown as MockMonitor;
  pulumi.runtime.setAllConfig(config, [...secretKeys]);
  // A fresh module registry runs the program anew. Not jest.isolateModules: Pulumi looks modules up in
  // require.cache when it serializes a dynamic provider, and an isolated registry is gone by then.
  jest.resetModules();
  // Each fresh @pulumi/pulumi adds one process exit listener (its promise-leak report); count it in.
  process.setMaxListeners(process.getMaxListeners() + 1);
  const exports = require(programPath) as Exports;
  // Drains the queue of registrations, as the engine does before a program ends.
  await pulumi.runtime.disconnect();
  const urns = [...monitor.resources.keys()];
  const resources = registered.map((resource) => ({
    ...resource,
    urn: urns.find((urn) => urn.endsWith(`${resource.type}::${resource.name}`)) ?? '',
  }));
  return { resources, exports };
}

export function isSecretValue(value: unknown): value is { value: unknown } {
  return typeof value === 'object' && value !== null && (value as Record<string, unknown>)[SECRET_SIG_KEY] === SECRET_SIG;
}

/** The inputs with every secret wrapper replaced by its value (for comparing objects). */
export function revealed(value: unknown): unknown {
  if (isSecretValue(value)) return revealed(value.value);
  if (Array.isArray(value)) return value.map(revealed);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, revealed(inner)]));
  }
  return value;
}

/** Every string in the inputs that is not inside a secret wrapper. */
export function clearStrings(value: unknown): string[] {
  if (isSecretValue(value)) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(clearStrings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(clearStrings);
  return [];
}

/** Resolves every Output in a value (stack exports), keeping whether each was secret. */
export async function resolveOutputs(value: unknown): Promise<unknown> {
  if (pulumi.Output.isInstance(value)) {
    const [resolved, secret] = await Promise.all([new Promise<unknown>((resolve) => value.apply((inner) => resolve(inner))), pulumi.isSecret(value)]);
    return secret ? { [SECRET_SIG_KEY]: SECRET_SIG, value: resolved } : resolveOutputs(resolved);
  }
  if (Array.isArray(value)) return Promise.all(value.map(resolveOutputs));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(await Promise.all(Object.entries(value).map(async ([key, inner]) => [key, await resolveOutputs(inner)])));
  }
  return value;
}
