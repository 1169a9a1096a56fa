export * from './spec';
export * from './secret-ref';
export * from './presets';
export * from './example';
export * from './load';
export { SpecError, parseSpec, checkTarget, secretHeaders, withoutSecretHeaders, type ParseOptions } from './validate';
