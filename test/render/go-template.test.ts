/** Text put into a Go template: no action left but the ones printing {; Go's own templates judge it in go-template.integration.test.ts. */
import { GO_TEMPLATE_BRACE, goTemplateLiteral } from '../../src/render/go-template';
import { hostileText, samples } from '../support/hostile-text';

describe('goTemplateLiteral', () => {
  it('leaves text without {{ or a final { as it is', () => {
    expect(goTemplateLiteral('web_2xx {a} }} {')).toBe(`web_2xx {a} }} ${GO_TEMPLATE_BRACE}`);
    expect(goTemplateLiteral('https://example.com/a?b=c')).toBe('https://example.com/a?b=c');
  });

  it('leaves no {{ that is not its own action printing {', () => {
    for (const text of samples(hostileText(), 500)) {
      const literal = goTemplateLiteral(text);
      expect(literal.split(GO_TEMPLATE_BRACE).join('').includes('{{')).toBe(false);
      expect(literal.split(GO_TEMPLATE_BRACE).join('').endsWith('{')).toBe(false);
    }
  });

  it('writes no character a YAML writer escapes: the action survives a chart toYaml in any quoting style', () => {
    expect(GO_TEMPLATE_BRACE).not.toMatch(/["'\\\n]/);
  });
});
