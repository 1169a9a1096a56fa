export * from './model';
export * from './render';
export * from './cdk8s';
