/**
 * Runs one icmp probe in a process of its own and prints the outcome as JSON, for tests that need the
 * probe under other privileges or in a network namespace (started with capsh or unshare around this).
 * Usage: tsx icmp-probe-child.ts <target> '<icmp section as JSON>' [timeout ms]
 */
import { openDescriptors } from '../../../test/support/open-handles';
import { runModule } from './probe-run';

async function main(): Promise<void> {
  const [target, section, timeout] = process.argv.slice(2);
  const descriptorsBefore = openDescriptors();
  const run = await runModule({ prober: 'icmp', icmp: JSON.parse(section) }, target, { timeoutMs: Number(timeout ?? 2000) });
  // Let closed handles finish closing before taking stock of what is still open.
  await new Promise((resolve) => setImmediate(resolve));
  const resourcesAfter = process.getActiveResourcesInfo().filter((resource) => resource !== 'TTYWrap' && resource !== 'PipeWrap');
  const descriptorsLeft = openDescriptors() - descriptorsBefore;
  process.stdout.write(JSON.stringify({ ...run, resourcesAfter, descriptorsLeft }));
}

void main();
