/**
 * The app `cdk8s synth` runs (cdk8s.yaml): `probekit synth` into the folder the cdk8s CLI names, with the spec of
 * PROBEKIT_SPEC or the documented example. The files it writes are the command's; this only adapts to the CLI.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { processIo } from '../cli/command';
import { main } from '../cli/main';

/**
 * The cdk8s CLI removes its output folder, runs the app, and reports any non-zero exit with its own stack trace;
 * it reports an app that leaves no output folder behind with one line of its own (`ERROR: synthesis failed, app
 * expected to create "dist"`) and exit code 1. So under the CLI, recognised by an output folder that does not
 * exist yet, a failed synth exits 0 having written nothing, and the user reads our problems and that one line.
 * Run any other way (directly, or with `cdk8s synth --stdout`, whose folder exists already), it exits as the
 * command does.
 */
const outdir = resolve(process.env.CDK8S_OUTDIR || 'dist');
const underCdk8sCli = process.env.CDK8S_OUTDIR !== undefined && !existsSync(outdir);

// npm runs scripts in the package's root and says where it was started in INIT_CWD, so that
// `PROBEKIT_SPEC=mine.yaml npx cdk8s synth` in a package script reads mine.yaml from there. The cdk8s CLI prints
// the files itself (and with --stdout, the manifests on stdout), so the command's list of files is left out.
const io = { ...processIo(), cwd: process.env.INIT_CWD ?? process.cwd(), stdout: () => undefined };
main(['synth', '--out', outdir], io).then(
  (code) => {
    process.exitCode = code !== 0 && underCdk8sCli ? 0 : code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
