/**
 * Node's arguments for running a TypeScript entry point of this repository from source, in a child process:
 * tsx compiles it, and the packages resolve each other to their sources, as they do in the tests.
 */
export const FROM_SOURCE: readonly string[] = ['--conditions=@probekit/source', '--import', 'tsx'];
