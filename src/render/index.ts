export * from './exporter-config';
export * from './scrape-job';
export * from './agent-values';
export * from './search-engine-secret';
export * from './host-files';
export * from './labels';
