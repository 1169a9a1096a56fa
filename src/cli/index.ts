/**
 * `probekit/cli`: the command-line framework the `probekit` dispatcher runs commands with, for the commands another
 * package provides (`@probekit/assistant`'s), and the facts of what the library deploys that those commands share:
 * the search-engine Secret and the skills server. Light on purpose: no cdk8s, nothing of the assistant.
 */
export * from './command';
export * from '../render/search-engine-secret';
export * from '../render/skills-server';
