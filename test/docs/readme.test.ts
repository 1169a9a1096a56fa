/**
 * The README stays what a newcomer reads in ten minutes: at most 600 lines, with the reference in docs/, each
 * document of which it links.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentationFiles, readMarkdown, ROOT } from '../support/markdown';

describe('README.md', () => {
  it('has at most 600 lines', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
    expect(lines.length).toBeLessThanOrEqual(600);
  });

  it('links every document of docs/', () => {
    const linked = new Set(readMarkdown('README.md').links.map(({ target }) => target.split('#')[0]));
    const docs = documentationFiles().filter((file) => file.startsWith('docs/'));
    expect(docs.filter((file) => !linked.has(file))).toEqual([]);
  });
});
