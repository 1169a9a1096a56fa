/**
 * The default app that `cdk8s synth` and `npm run synth` run: the spec file named by PROBEKIT_SPEC, or
 * the documented example. A bad spec stops synth with one line per problem, naming the field.
 */
import { documentedExample, loadSpecFile, parseSpec, ProblemsError } from '../model';
import { ProbekitApp, ProbekitChart } from './probekit';

function main(): void {
  const specFile = process.env.PROBEKIT_SPEC;
  try {
    const spec = specFile ? loadSpecFile(specFile, { env: process.env }) : parseSpec(documentedExample, { source: 'documented example', env: process.env });
    const app = new ProbekitApp();
    new ProbekitChart(app, 'probekit', { spec, env: process.env });
    app.synth();
  } catch (error) {
    if (error instanceof ProblemsError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

main();
