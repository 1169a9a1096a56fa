/**
 * The skills server's image (the Dockerfile at the repository's root), built and run by images.integration.test.ts;
 * here the Dockerfile is checked against the facts it must agree with: the construct that runs it (command, port, health
 * path), the packages it installs (probekit's bin, with the exporter and the assistant, whose commands the bin runs),
 * the exporter's image (the same pinned base), and the files it copies. The packs are packaging/pack.mjs's, which
 * test/package/consumer.integration.test.ts installs as a cdk8s user does (probekit and the exporter, without the assistant).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { AssistantSkills } from '../../src/cdk8s/assistant-skills';
import { SKILLS_SERVER_HEALTH_PATH, SKILLS_SERVER_IMAGE, SKILLS_SERVER_PORT } from '../../src/render/skills-server';

const ROOT = join(__dirname, '..', '..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const instructions = dockerfile
  .replace(/\\\n\s*/g, ' ')
  .split('\n')
  .filter((line) => /^[A-Z]+ /.test(line));
const args = (instruction: string) => instructions.filter((line) => line.startsWith(`${instruction} `)).map((line) => line.slice(instruction.length + 1));

describe('the skills server image', () => {
  it('builds on the pinned Node image the exporter image uses, runs from scratch, as a numeric unprivileged user', () => {
    const exporterBases = [...readFileSync(join(ROOT, 'exporter', 'Dockerfile'), 'utf8').matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    const bases = args('FROM').map((from) => from.split(' ')[0]);
    expect(bases).toEqual(exporterBases);
    expect(bases.at(-1)).toBe('scratch');
    expect(args('USER')).toEqual(['1000:1000']);
  });

  it('copies only files that exist, and installs the packages the repository packs: probekit, the exporter and the assistant', () => {
    for (const copy of args('COPY').filter((line) => !line.startsWith('--from'))) {
      const sources = copy.split(' ').slice(0, -1);
      for (const source of sources) expect(existsSync(join(ROOT, source))).toBe(true);
    }
    const workspace = (folder: string) => JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')) as { name: string; scripts: Record<string, string> };
    const [exporterPackage, assistantPackage] = [workspace('exporter'), workspace('assistant')];
    expect(exporterPackage.scripts['build:contract']).toBeDefined();
    const [install] = args('RUN').filter((line) => line.startsWith('npm ci '));
    for (const name of [exporterPackage.name, assistantPackage.name]) expect(install).toContain(`--workspace ${name}`);
    // Packed as they are published, by the repository's pack step, which packs the root package and both workspaces.
    expect(dockerfile).toMatch(/ node packaging\/pack\.mjs --out \/packs\n/);
    const packStep = readFileSync(join(ROOT, 'packaging', 'pack.mjs'), 'utf8');
    for (const folder of ['.', 'exporter', 'assistant']) expect(packStep).toContain(`folder: '${folder}'`);
    expect(dockerfile).toMatch(/npm install --omit=dev --omit=peer .* \/packs\/\*\.tgz/);
  });

  it("runs the package's bin with the arguments, port and health path of the construct that deploys it", () => {
    const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    expect(Object.keys(rootPackage.bin)).toEqual(['probekit']);
    expect(args('ENV').join(' ')).toMatch(/^PATH=\/opt\/probekit\/node_modules\/\.bin:/);
    const chart = new Chart(Testing.app(), 'assistant');
    new AssistantSkills(chart, 'skills', { mcpToken: { name: 'probekit-mcp-token', key: 'token' }, clients: [kplus.Pods.select(chart, 'assistant', { labels: { app: 'assistant' } })] });
    const container = (Testing.synth(chart) as { kind: string; spec: any }[]).find((m) => m.kind === 'Deployment')!.spec.template.spec.containers[0];
    expect(JSON.parse(args('ENTRYPOINT')[0]!)).toEqual(container.command);
    expect(JSON.parse(args('CMD').at(-1)!)).toEqual(container.args);
    expect(args('EXPOSE')).toEqual([String(SKILLS_SERVER_PORT)]);
    expect(container.ports[0].containerPort).toBe(SKILLS_SERVER_PORT);
    // An OCI image drops HEALTHCHECK: the construct's probes, asked of the running image in images.integration.test.ts.
    expect(dockerfile).not.toMatch(/^HEALTHCHECK/m);
    expect(container.readinessProbe.httpGet).toEqual({ path: SKILLS_SERVER_HEALTH_PATH, port: SKILLS_SERVER_PORT, scheme: 'HTTP' });
    expect(container.image).toBe(SKILLS_SERVER_IMAGE);
  });
});
