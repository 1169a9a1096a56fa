/**
 * The Prometheus Operator's published schema for its objects (`monitoring.coreos.com/v1`), as
 * @kubernetes-models/prometheus-operator generates it from the Operator's CRDs (release 0.90.1): the checks an API
 * server makes of a Probe, a ServiceMonitor or a PrometheusRule before storing it. The package is an ES module
 * only, which jest's CommonJS loader cannot import, so the objects are checked in a node process of their own.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Kinds whose schema the package holds; the script refuses others. */
export const OPERATOR_KINDS = ['Probe', 'ServiceMonitor', 'PrometheusRule'] as const;

const SCRIPT = `
import * as models from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const problems = JSON.parse(input).map((object) => {
  const Model = models[object.kind];
  if (object.apiVersion !== 'monitoring.coreos.com/v1' || typeof Model !== 'function') return object.kind + ': no schema for ' + object.apiVersion + ' ' + object.kind;
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
