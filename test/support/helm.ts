/** What Helm does to values, modelled for the parts of it tests need, without a helm binary. */

import { GO_TEMPLATE_BRACE } from '../../src/render/go-template';

/**
 * What Helm's `tpl` prints for text whose only template actions are GO_TEMPLATE_BRACE (how probekit writes a
 * literal `{`): each such action prints `{`. Any other action is an error here, since probekit writes none and a
 * chart's `tpl` would run it; Go's own templates judge GO_TEMPLATE_BRACE in test/render/go-template.test.ts.
 */
export function renderedByTpl(text: string): string {
  let printed = '';
  let at = 0;
  for (let action = text.indexOf('{{'); action !== -1; action = text.indexOf('{{', at)) {
    if (!text.startsWith(GO_TEMPLATE_BRACE, action)) throw new Error(`a template action other than a literal { at: ${text.slice(action, action + 40)}`);
    printed += `${text.slice(at, action)}{`;
    at = action + GO_TEMPLATE_BRACE.length;
  }
  return printed + text.slice(at);
}
