/**
 * The unit guard (unit-guard.ts) is installed in every jest worker, so integration tests run through its
 * wrappers with the guard off: these must behave as Node's own functions do.
 */
import { execFile, exec } from 'node:child_process';
import { promisify } from 'node:util';

it('leaves promisify(execFile) and promisify(exec) their { stdout, stderr } form, resolved and rejected', async () => {
  const run = promisify(execFile);
  expect(await run('sh', ['-c', 'echo out; echo err >&2'])).toEqual({ stdout: 'out\n', stderr: 'err\n' });
  await expect(run('sh', ['-c', 'echo said >&2; exit 3'])).rejects.toMatchObject({ code: 3, stderr: 'said\n' });
  expect(await promisify(exec)('echo shell')).toEqual({ stdout: 'shell\n', stderr: '' });
});
