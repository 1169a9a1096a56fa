export * from './blackbox-exporter';
export * from './agent-values';
export * from './search-engine-secret';
export * from './probekit';
export * from './synth';
export * from './assistant-skills';
