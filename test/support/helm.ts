/** What Helm does to values, modelled for the parts of it tests need, without a helm binary. */

/**
 * What Helm's `tpl` prints for text whose only template actions are `{{ "{{" }}` (how probekit writes a literal
 * `{{`): each such action prints `{{`. Any other action is an error here, since probekit writes none and a chart's
 * `tpl` would run it.
 */
export function renderedByTpl(text: string): string {
  const parts = text.split('{{ "{{" }}');
  const stray = parts.find((part) => part.includes('{{'));
  if (stray !== undefined) throw new Error(`a template action other than a literal {{ in: ${stray}`);
  return parts.join('{{');
}
