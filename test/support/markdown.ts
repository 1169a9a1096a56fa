/**
 * The repository's Markdown as GitHub renders it, for the tests that hold the README and docs/ to the files they
 * link and the code they show: its headings' anchors, its links and its fenced code blocks, each with its line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..');

/** README.md and every docs/*.md, as paths relative to the repository's root. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

export interface CodeBlock {
  /** The word after the opening fence (`ts`, `yaml`, `sh`), or '' for none. */
  readonly language: string;
  readonly text: string;
  /** The line of the opening fence, from 1. */
  readonly line: number;
}

export interface Link {
  readonly target: string;
  readonly line: number;
}

export interface Markdown {
  readonly anchors: ReadonlySet<string>;
  readonly links: readonly Link[];
  readonly blocks: readonly CodeBlock[];
}

/**
 * The anchor GitHub gives a heading: its text without the Markdown of links and code, lower case, every character
 * but letters, digits, spaces, hyphens and underscores dropped, and each space a hyphen.
 */
export function headingAnchor(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Reads a Markdown file: anchors (a repeated heading gets `-1`, `-2`, as on GitHub), links and code blocks. */
export function readMarkdown(path: string): Markdown {
  const lines = readFileSync(join(ROOT, path), 'utf8').split('\n');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const links: Link[] = [];
  const blocks: CodeBlock[] = [];
  let open: { language: string; line: number; text: string[] } | undefined;
  lines.forEach((line, index) => {
    const fence = /^```(\S*)/.exec(line);
    if (fence) {
      if (open) {
        blocks.push({ language: open.language, text: open.text.map((text) => `${text}\n`).join(''), line: open.line });
        open = undefined;
      } else open = { language: fence[1]!, line: index + 1, text: [] };
      return;
    }
    if (open) {
      open.text.push(line);
      return;
    }
    const heading = /^#{1,6} (.*)$/.exec(line);
    if (heading) {
      const anchor = headingAnchor(heading[1]!);
      const count = seen.get(anchor) ?? 0;
      seen.set(anchor, count + 1);
      anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
    }
    // Links outside inline code: `[text](target)` in backticks is an example, not a link.
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)) links.push({ target: match[1]!, line: index + 1 });
  });
  return { anchors, links, blocks };
}
