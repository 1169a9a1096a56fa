export * from './spec';
export * from './secret-ref';
export * from './presets';
export * from './example';
export * from './load';
export { describeIssues, formatPath, type FieldPath } from './issues';
export { SpecError, parseSpec, checkTarget, secretHeaders, withoutSecretHeaders, type ParseOptions } from './validate';
