/**
 * The Prometheus Operator's published schema for its objects (`monitoring.coreos.com/v1`, and v1alpha1's
 * AlertmanagerConfig), as @kubernetes-models/prometheus-operator generates it from the Operator's CRDs (release
 * 0.90.1): the checks an API server makes of a Probe, a ServiceMonitor, a PrometheusRule or an AlertmanagerConfig
 * before storing it. The package is an ES module
 * only, which jest's CommonJS loader cannot import, so the objects are checked in a node process of their own.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Kinds whose schema the package holds; the script refuses others. */
export const OPERATOR_KINDS = ['Probe', 'ServiceMonitor', 'PrometheusRule', 'AlertmanagerConfig'] as const;

const SCRIPT = `
import * as v1 from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import * as v1alpha1 from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1alpha1';
const versions = { 'monitoring.coreos.com/v1': v1, 'monitoring.coreos.com/v1alpha1': { AlertmanagerConfig: v1alpha1.AlertmanagerConfig } };
let input = '';
for await (const chunk of process.stdin) input += chunk;
const problems = JSON.parse(input).map((object) => {
  const Model = versions[object.apiVersion]?.[object.kind];
  if (typeof Model !== 'function') return object.kind + ': no schema for ' + object.apiVersion + ' ' + object.kind;
  try {
    new Model(object).validate();
    return null;
  } catch (error) {
    return object.kind + '/' + object.metadata?.name + ': ' + error.message;
  }
});
process.stdout.write(JSON.stringify(problems));
`;

/** One entry per object: undefined when it validates, else what the schema says is wrong. */
export function operatorSchemaProblems(objects: readonly object[]): Promise<Array<string | undefined>> {
  return new Promise((resolve, reject) => {
    const child = execFile(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: ROOT }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve((JSON.parse(stdout) as Array<string | null>).map((problem) => problem ?? undefined));
    });
    child.stdin!.end(JSON.stringify(objects));
  });
}
