/**
 * What each chart reads at the keys probekit writes, as JSON Schemas in our own words, and a check of rendered
 * values against them (ajv). Where the chart ships a values.schema.json, the contract is at least as strict as it
 * for those keys; every contract is also stricter in one way the charts are not: `additionalProperties: false` on
 * the objects we write, because a chart silently ignores a key it does not read, and values that install without a
 * word and scrape nothing are what this check is for. Each file names the chart version and the files it was read
 * from. The Kubernetes objects inside the values (volumes, mounts) are checked against Kubernetes' own schema by
 * the tests, through kubernetes-models.
 */
import Ajv, { type AnySchema } from 'ajv';

const ajv = new Ajv({ allErrors: true, strict: true });

/** Each way the values break the contract, as `path: message`; empty when they keep it. */
export function contractProblems(schema: AnySchema, values: unknown): string[] {
  const validate = ajv.compile(schema);
  if (validate(values)) return [];
  return (validate.errors ?? []).map(
    (error) => `${error.instancePath || '/'}: ${error.message}${error.keyword === 'additionalProperties' ? ` (${(error.params as { additionalProperty: string }).additionalProperty})` : ''}`,
  );
}

/** An object of these properties and no other. */
export function only(properties: Record<string, AnySchema>, required: readonly string[] = []): AnySchema {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** A list of Kubernetes volumes or volume mounts: objects with a name (Kubernetes' schema checks the rest). */
export const NAMED_LIST: AnySchema = { type: 'array', items: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1 } } } };
