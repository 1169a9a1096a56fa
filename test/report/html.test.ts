import { renderHtml } from '../../src/report';
import { sampleReport } from './sample-report';

describe('renderHtml', () => {
  it('is one file: no script, and no stylesheet, font, image or frame from anywhere', () => {
    const html = renderHtml(sampleReport());
    expect(html).not.toMatch(/<script|<link|<img|<iframe|<object|@import|@font-face|url\((?!#)|(?:src|href|xlink:href)=/i);
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
  });

  it('draws a bar per timeline bucket, coloured by whether every probe succeeded and by the objective', () => {
    const report = sampleReport();
    const html = renderHtml(report);
    const bars = [...html.matchAll(/<rect class="(up|degraded|down|none)" x=/g)].map((match) => match[1]);
    expect(bars).toHaveLength(3 * 120);
    // checkout's 94.03% bucket is below its 99.9% objective; internal's 98.9% is below the 99% used without one.
    expect(bars.filter((state) => state !== 'up')).toEqual(['down', 'down', 'down', 'down']);
    expect(html).toContain('<title>2026-11-11 18:00:00 UTC to 2026-11-12 00:00:00 UTC: 94.03% up</title>');
  });

  it('escapes what Prometheus holds: an instance, a job, a location, the title', () => {
    const report = sampleReport();
    const hostile = '<img src=x onerror=alert(1)>"\'&';
    const targets = report.targets.map((target) => ({ ...target, instance: hostile, job: hostile, location: hostile }));
    const jobs = [{ ...report.jobs[0]!, job: hostile, locations: [hostile, 'b'] }];
    const html = renderHtml({ ...report, targets, jobs }, { title: hostile });
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;');
  });

  it('names the location of each target where a job probes from several, and the open incidents as ongoing', () => {
    const report = sampleReport();
    const targets = report.targets.map((target, index) => ({ ...target, location: index === 0 ? 'eu-west' : 'us-east' }));
    const html = renderHtml({ ...report, targets, jobs: report.jobs.map((job) => ({ ...job, locations: job.job === 'checkout' ? ['eu-west', 'us-east'] : ['us-east'] })) });
    expect(html.match(/from eu-west/g)).toHaveLength(2); // the table and the incident
    expect(html).toContain('<span class="location">from us-east</span>');
    expect(html.match(/<span class="ongoing">ongoing<\/span>/g)).toHaveLength(1);
    expect(html).toContain('1 target down now');
  });

  it("lists the spec's targets not seen in the window apart, escaped, and counts them in the header", () => {
    const hostile = '<img src=x>';
    const html = renderHtml({
      ...sampleReport(),
      unseen: [
        { job: 'checkout', instance: 'https://new.example.com' },
        { job: hostile, instance: hostile },
      ],
    });
    expect(html).toContain('3 targets (2 more not seen)');
    expect(html).toContain('<h2>Not seen in this window</h2><span class="figure"><b>2</b> targets of the spec without a probe');
    expect(html).toContain('<tr><td>checkout</td><td><span class="instance">https://new.example.com</span></td></tr>');
    expect(html).not.toContain('<img');
    expect(renderHtml(sampleReport())).not.toContain('Not seen');
  });
});
