/**
 * npm run bench: the exporter against the reference (exporter/bench/run.ts, its settings in the environment);
 * npm run bench -- synth: synthesis at scale and the exporter's /sd/<job> (./synth.ts).
 */
import { spawnSync } from 'node:child_process';
import { main as benchSynth } from './synth';

if (process.argv[2] === 'synth') {
  benchSynth().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  process.exit(spawnSync(npm, ['run', 'bench', '--workspace', '@probekit/exporter', '--', ...process.argv.slice(2)], { stdio: 'inherit' }).status ?? 1);
}
