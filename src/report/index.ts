/** `probekit report`'s parts: Prometheus' answers to a Report, and the Report as JSON, Markdown, HTML or a badge. */
export * from './model';
export { collectReport, bucketCount, MOST_BUCKETS, type ReportRequest } from './collect';
export { prometheusApi, PrometheusFailure, type PrometheusApi, type ApiOptions } from './prometheus-api';
export { renderMarkdown } from './markdown';
export { renderHtml, type HtmlOptions } from './html';
export { renderBadge } from './badge';
