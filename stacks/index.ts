/**
 * The Pulumi program (Pulumi.yaml `main: stacks/`): probekit on every cluster of the stack configuration.
 * It runs on load, as Pulumi programs do; its exports are the stack outputs.
 */
import { parseStackConfig, readRawStackConfig } from './config';
import { deployProbekit } from './deploy';

const deployment = deployProbekit(parseStackConfig(readRawStackConfig(), process.env), process.env);

export const searchEngineApiKeyId = deployment.outputs.searchEngineApiKeyId;
export const clusters = deployment.outputs.clusters;
export const centralRules = deployment.outputs.centralRules;
export const alertmanagerConfig = deployment.outputs.alertmanagerConfig;
