/**
 * The default app that `cdk8s synth` and `npm run synth` run: the spec file named by PROBEKIT_SPEC, or
 * the documented example. A bad spec stops synth with one line per problem, naming the field.
 */
import { existsSync } from 'node:fs';
import { documentedExample, loadSpecFile, parseSpec, ProblemsError } from '../model';
import { ProbekitApp, ProbekitChart } from './probekit';

/**
 * The directory PROBEKIT_SPEC is relative to: the caller's. npm runs scripts in the package's root and says
 * where it was started in INIT_CWD, so `PROBEKIT_SPEC=mine.yaml npm run synth` reads mine.yaml from there.
 */
function callerDirectory(): string {
  return process.env.INIT_CWD ?? process.cwd();
}

/**
 * How the app says it failed, after printing its problems. The cdk8s CLI (`cdk8s synth`) removes its output
 * folder, runs the app, and reports any non-zero exit with its own stack trace; it reports an app that leaves
 * no output folder behind with one line of its own (`ERROR: synthesis failed, app expected to create "dist"`)
 * and exit code 1. So under the CLI, recognised by an output folder that does not exist yet, the app exits 0
 * having written nothing, and the user reads our problems and that one line. Run any other way (directly, or
 * with `cdk8s synth --stdout`, whose folder exists already), it exits 1.
 */
function failureExitCode(): number {
  const outdir = process.env.CDK8S_OUTDIR;
  return outdir !== undefined && outdir !== '' && !existsSync(outdir) ? 0 : 1;
}

function main(): void {
  const specFile = process.env.PROBEKIT_SPEC;
  try {
    const spec = specFile
      ? loadSpecFile(specFile, { env: process.env, cwd: callerDirectory(), namedBy: `PROBEKIT_SPEC=${specFile}` })
      : parseSpec(documentedExample, { source: 'documented example', env: process.env });
    const app = new ProbekitApp();
    new ProbekitChart(app, 'probekit', { spec, env: process.env });
    app.synth();
  } catch (error) {
    if (error instanceof ProblemsError) {
      // What only the cluster form refuses (a unix job) is found past parsing; it is named from the spec file as well.
      process.stderr.write(`${error.namedAfter(specFile ?? 'documented example').message}\n`);
      process.exit(failureExitCode());
    }
    throw error;
  }
}

main();
