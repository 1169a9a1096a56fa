export * from './spec';
export { LOCATION_LABEL, majority } from './alerting';
export * from './secret-ref';
export * from './agent-chart';
export { localExporterAddress } from './host';
export * from './presets';
export * from './example';
export * from './load';
export * from './problems';
export { SpecError, parseSpec, checkTarget, EMPTY_SPEC_FIX, type ParseOptions } from './validate';
export { moduleSecrets, moduleWithSecretFiles, moduleWithSecretsInPlace, withoutSecrets, type ModuleSecret, type PlacedSecret } from './secret-fields';
// Problems as the exporter's contract defines them: SpecError carries them, and other inputs report through them.
export { formatPath, formatProblem, ProblemsError, schemaProblems, closestName, type FieldPath, type Problem } from '@probekit/exporter';
