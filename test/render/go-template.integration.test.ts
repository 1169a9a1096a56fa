/** Text put into a Go template prints as itself: Go's own text/template (Prometheus's, through promtool) is the judge. */
import { goTemplateLiteral } from '../../src/render/go-template';
import { hostileText, samples, TEMPLATE_FRAGMENTS } from '../support/hostile-text';
import { describeWithBinaries } from '../support/integration';
import { goTemplatesPrint, PROMTOOL } from '../support/promtool';

describeWithBinaries([PROMTOOL])("Go's text/template", () => {
  it('prints every hostile text as itself, also with a template of ours after it', async () => {
    const texts = ['{{ with query "up" }}{{ . | first | value }}{{ end }}', 'web{{', 'a{', '{', ...TEMPLATE_FRAGMENTS, ...samples(hostileText(), 300)];
    const pairs = texts.flatMap((text) => [
      { template: goTemplateLiteral(text), text },
      { template: `${goTemplateLiteral(text)}{{ "!" }}`, text: `${text}!` },
    ]);
    const result = await goTemplatesPrint(pairs);
    expect(result.output).toContain('SUCCESS');
    expect(result.ok).toBe(true);
  });

  it('would catch a text written as it is (the judge is real)', async () => {
    const result = await goTemplatesPrint([{ template: 'web{{', text: 'web{{' }]);
    expect(result.ok).toBe(false);
    const ran = await goTemplatesPrint([{ template: '{{ "a" }}', text: '{{ "a" }}' }]);
    expect(ran.ok).toBe(false);
  });
});
