/**
 * Hostile text for names, targets, labels and descriptions: fragments that start or end a Go template action, run
 * PromQL in one, break YAML or a shell line, or hide in Unicode, set among ordinary characters.
 */
import fc from 'fast-check';

export const TEMPLATE_FRAGMENTS = [
  '{{',
  '}}',
  '{',
  '}',
  '{{ with query "up" }}{{ . | first | value }}{{ end }}',
  '{{/* x */}}',
  '{{- ',
  ' -}}',
  '{{ `{` }}',
  '{{ "{{" }}',
  '{{ .Release.Name }}',
  '{{ $labels.instance }}',
  '{{{',
];

const OTHER_FRAGMENTS = ['"', "'", '\\', '`', '$', '$1', '${1}', '#', ': ', '- ', '\n', '\t', '|', '&', ';', '<', '>', 'é', '\u202e', '%', '%7B'];

/** Text holding at least one fragment, among letters, digits and ordinary punctuation. */
export function hostileText(fragments: readonly string[] = [...TEMPLATE_FRAGMENTS, ...OTHER_FRAGMENTS]): fc.Arbitrary<string> {
  const plain = fc.stringMatching(/^[a-z0-9_.-]{0,6}$/);
  return fc
    .tuple(plain, fc.array(fc.tuple(fc.constantFrom(...fragments), plain), { minLength: 1, maxLength: 4 }))
    .map(([head, parts]) => head + parts.map(([fragment, tail]) => fragment + tail).join(''));
}

/** Texts holding a `{`: the ones a Go template would read as the start of an action. */
export const templateText = hostileText(TEMPLATE_FRAGMENTS);

/** `count` samples of an arbitrary, the same on every run. */
export function samples<T>(arbitrary: fc.Arbitrary<T>, count: number, seed = 36): T[] {
  return fc.sample(arbitrary, { numRuns: count, seed });
}
