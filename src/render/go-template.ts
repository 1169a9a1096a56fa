/**
 * Text that goes through a Go template as it is: Prometheus expands every alert rule's labels and annotations as
 * one, and a chart's `tpl` runs its values as one. A name or a target holding `{{` would start an action there (a
 * module named `{{ with query "up" }}` runs PromQL inside an alert), so every text of the user's that probekit puts
 * into such a template is written with this.
 */

/**
 * An action printing one `{`. A raw string: a chart's `toYaml` may write the value in double quotes, escaping a
 * `"` but never a backquote, so the action reads the same after any YAML quoting.
 */
export const GO_TEMPLATE_BRACE = '{{ `{` }}';

/**
 * `text` as template text that prints `text`: each `{` that a `{` follows, or that ends the text (a template of
 * ours may follow it), is written as an action printing it; no `{{` is left to start an action. A lone `}}` is text
 * to Go's templates.
 */
export function goTemplateLiteral(text: string): string {
  return text.replace(/\{(?=\{|$)/g, GO_TEMPLATE_BRACE);
}
