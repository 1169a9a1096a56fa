/**
 * The README and docs/ point only at what exists: every relative link at a file or folder of the repository, and
 * every anchor (`#...`, in the same file or another) at a heading of that file, as GitHub derives heading anchors.
 */
import { existsSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { documentationFiles, headingAnchor, readMarkdown, ROOT } from '../support/markdown';

const files = documentationFiles();

describe('links in README.md and docs/*.md', () => {
  it.each(files)('%s: every relative link names a file that exists, and every anchor a heading in it', (file) => {
    const broken: string[] = [];
    for (const { target, line } of readMarkdown(file).links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const linked = path === '' ? file : normalize(join(dirname(file), path));
      if (!existsSync(join(ROOT, linked))) broken.push(`${file}:${line}: ${target}: no file ${linked}`);
      else if (anchor !== undefined && !linked.endsWith('.md')) broken.push(`${file}:${line}: ${target}: an anchor into a file that is not Markdown`);
      else if (anchor !== undefined && !readMarkdown(linked).anchors.has(anchor)) broken.push(`${file}:${line}: ${target}: no heading of ${linked} has the anchor #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it('finds links and anchors as GitHub does', () => {
    expect(headingAnchor('Idle once settled; probes on two cores (`--probe.workers`)')).toBe('idle-once-settled-probes-on-two-cores---probeworkers');
    expect(headingAnchor("Debug links and the exporter's URL")).toBe('debug-links-and-the-exporters-url');
    const readme = readMarkdown('README.md');
    expect(readme.links.length).toBeGreaterThan(20);
    expect(readme.anchors).toContain('what-it-is');
  });
});
