/**
 * The target files of `agent.targets: http_sd`: pieces of at most PIECE_BYTES of JSON, packed into ConfigMaps of at
 * most TARGET_CONFIG_MAP_BYTES of base64 whatever the targets (incompressible ones too), and read back (as the
 * exporter reads them: every file, in the order of its name) as the groups given, labels and all.
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { PIECE_BYTES, pieceTexts, TARGET_CONFIG_MAP_BYTES, TargetFilePacker, type PlacedPiece } from '../../src/render/target-files';
import type { TargetGroup } from '../../src/render/scrape-job';

/** Targets that compress badly: hex digests, each its own. */
const randomTargets = (count: number, salt: string): string[] =>
  Array.from({ length: count }, (_, index) => `https://${createHash('sha256').update(`${salt}${index}`).digest('hex')}.example.com/${createHash('md5').update(`${index}`).digest('base64url')}`);

/** The pieces as the exporter serves them: each job's groups, in the order of the files' names. */
function readBack(placed: readonly PlacedPiece[]): Record<string, TargetGroup[]> {
  const jobs: Record<string, TargetGroup[]> = {};
  for (const { piece } of [...placed].sort((a, b) => a.piece.name.localeCompare(b.piece.name))) {
    for (const [job, groups] of Object.entries(JSON.parse(gunzipSync(piece.gzipped).toString()) as Record<string, TargetGroup[]>)) (jobs[job] ??= []).push(...groups);
  }
  return jobs;
}

/** Groups with the same labels, one after the other, as one: Prometheus reads them so. */
function merged(groups: readonly TargetGroup[]): TargetGroup[] {
  const out: Array<{ targets: string[]; labels: Readonly<Record<string, string>> }> = [];
  for (const group of groups) {
    const last = out[out.length - 1];
    if (last && JSON.stringify(last.labels) === JSON.stringify(group.labels)) last.targets.push(...group.targets);
    else out.push({ targets: [...group.targets], labels: group.labels });
  }
  return out;
}

describe('target files', () => {
  it('packs 60,000 incompressible targets of two jobs into ConfigMaps each within the limit, and reads back every target and label in order', () => {
    const web: TargetGroup[] = [
      { targets: randomTargets(30_000, 'a'), labels: { module: 'http_2xx', team: 'a' } },
      { targets: randomTargets(5_000, 'b'), labels: { module: 'http_2xx.headers.3f9a1c', team: 'b', __param_module: 'http_2xx.headers.3f9a1c' } },
    ];
    const db: TargetGroup[] = [{ targets: randomTargets(25_000, 'c'), labels: { module: 'tcp_connect' } }];
    const packer = new TargetFilePacker();
    const placed = [...packer.add('web', web), ...packer.add('db@1m', db)];

    const configMaps = new Map<number, number>();
    for (const { configMap, piece } of placed) configMaps.set(configMap, (configMaps.get(configMap) ?? 0) + piece.gzipped.toString('base64').length);
    expect(packer.configMapCount).toBe(configMaps.size);
    expect(configMaps.size).toBeGreaterThan(10);
    for (const bytes of configMaps.values()) expect(bytes).toBeLessThanOrEqual(TARGET_CONFIG_MAP_BYTES);
    // ConfigMaps are filled in order: a piece never goes back to one left behind.
    expect(placed.map(({ configMap }) => configMap)).toEqual([...placed.map(({ configMap }) => configMap)].sort((a, b) => a - b));
    for (const { piece } of placed) expect(gunzipSync(piece.gzipped).length).toBeLessThanOrEqual(PIECE_BYTES);

    const back = readBack(placed);
    expect(Object.keys(back)).toEqual(['web', 'db@1m']);
    expect(merged(back.web)).toEqual(web);
    expect(merged(back['db@1m'])).toEqual(db);
  });

  it('puts small jobs together in one ConfigMap and refuses a job served twice by name', () => {
    const packer = new TargetFilePacker();
    const placed = ['a', 'b', 'c'].flatMap((job) => packer.add(job, [{ targets: [`https://${job}.example.com`], labels: { module: 'http_2xx' } }]));
    expect(placed.map(({ configMap, piece }) => [configMap, piece.name])).toEqual([
      [0, '000000.json.gz'],
      [0, '000001.json.gz'],
      [0, '000002.json.gz'],
    ]);
    expect(packer.has('b')).toBe(true);
    expect(packer.has('d')).toBe(false);
  });

  it('splits a group between pieces at the size, never within a target, and writes a job with no targets as no piece', () => {
    const long = 'x'.repeat(50_000);
    const texts = pieceTexts('j', [{ targets: [`https://${long}1`, `https://${long}2`, `https://${long}3`, `https://${long}4`], labels: { module: 'm' } }]);
    expect(texts.length).toBe(2);
    expect(texts.map((text) => (JSON.parse(text) as { j: TargetGroup[] }).j[0].targets.length)).toEqual([3, 1]);
    expect(pieceTexts('j', [])).toEqual([]);
  });
});
