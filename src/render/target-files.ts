/**
 * The target files the exporter serves at `/sd/<job>` (`agent.targets: http_sd`), packed into ConfigMaps.
 *
 * A ConfigMap, like every Kubernetes object, is held to 1 MiB, and `kubectl apply` copies the whole object into its
 * `last-applied-configuration` annotation, where all annotations together are held to 256 KiB: so each ConfigMap
 * here carries at most TARGET_CONFIG_MAP_BYTES of file content as the manifest writes it (base64 of the gzipped
 * files, in `binaryData`), which leaves room for the object's own fields in the annotation.
 *
 * Targets are written in pieces: each piece a whole target file (`{ "<job>": [groups] }`, gzipped) of at most
 * PIECE_BYTES of JSON, so that each target is serialized and compressed once, the size of every piece is known when
 * it is made, and a piece always fits a ConfigMap however badly its targets compress. Pieces are numbered in the
 * order they are made and the exporter reads them in the order of their paths, so a job's groups are served in the
 * order the spec gives them. A large group is split over pieces: groups with the same labels are the same targets
 * to Prometheus.
 */
import { gzipSync } from 'node:zlib';
import type { TargetGroup } from './scrape-job';

/** The most file content (base64) one target ConfigMap carries: 224 KiB, within `kubectl apply`'s 256 KiB of annotations. */
export const TARGET_CONFIG_MAP_BYTES = 224 * 1024;

/**
 * The most JSON one piece holds. Gzipped it takes at most about as much (incompressible text grows by a few bytes
 * per 16 KiB block), so its base64 (4/3 of it) stays under TARGET_CONFIG_MAP_BYTES whatever the targets are.
 */
export const PIECE_BYTES = 160 * 1024;

/** One target file: its name in the ConfigMap and its gzipped JSON. */
export interface TargetFilePiece {
  readonly name: string;
  readonly gzipped: Buffer;
}

/** Bytes a piece takes in a ConfigMap's `binaryData`, as the manifest writes it: base64. */
function base64Bytes(piece: TargetFilePiece): number {
  return Math.ceil(piece.gzipped.length / 3) * 4;
}

/** Where a piece went: the ConfigMap (by index) and the piece. */
export interface PlacedPiece {
  readonly configMap: number;
  readonly piece: TargetFilePiece;
}

/**
 * Packs jobs' target groups into pieces and the pieces into ConfigMaps, job after job: a ConfigMap once left for the
 * next is never written again, so a construct can make each ConfigMap when its first piece comes.
 */
export class TargetFilePacker {
  private readonly jobs = new Set<string>();
  private pieces = 0;
  private configMaps = 0;
  private used = Infinity;

  /** The number of ConfigMaps made so far. */
  get configMapCount(): number {
    return this.configMaps;
  }

  /** Whether `job`'s targets were added already: a job's name is its `/sd/<job>` path, one file list per name. */
  has(job: string): boolean {
    return this.jobs.has(job);
  }

  /** Adds a job's groups; returns where each of its pieces went. */
  add(job: string, groups: readonly TargetGroup[]): PlacedPiece[] {
    this.jobs.add(job);
    return pieceTexts(job, groups).map((text) => this.place({ name: `${String(this.pieces++).padStart(6, '0')}.json.gz`, gzipped: gzipSync(text) }));
  }

  private place(piece: TargetFilePiece): PlacedPiece {
    const bytes = base64Bytes(piece);
    if (bytes > TARGET_CONFIG_MAP_BYTES) throw new Error(`target file ${piece.name} takes ${bytes} bytes, more than a ConfigMap's ${TARGET_CONFIG_MAP_BYTES}`);
    if (this.used + bytes > TARGET_CONFIG_MAP_BYTES) {
      this.configMaps++;
      this.used = 0;
    }
    this.used += bytes;
    return { configMap: this.configMaps - 1, piece };
  }
}

/**
 * A job's groups as the JSON texts of its pieces, each at most PIECE_BYTES (a single target longer than that makes
 * a piece of its own). Each target is serialized once; a group too large for what is left of a piece is split.
 */
export function pieceTexts(job: string, groups: readonly TargetGroup[]): string[] {
  const head = `{${JSON.stringify(job)}:[`;
  const texts: string[] = [];
  let parts: string[] = [];
  let size = head.length;
  const close = (): void => {
    if (parts.length === 0) return;
    texts.push(`${head}${parts.join(',')}]}`);
    parts = [];
    size = head.length;
  };
  for (const group of groups) {
    const labels = JSON.stringify(group.labels);
    const frame = `{"labels":${labels},"targets":[`.length + 3;
    let targets: string[] = [];
    let groupSize = frame;
    const flush = (): void => {
      if (targets.length === 0) return;
      parts.push(`{"labels":${labels},"targets":[${targets.join(',')}]}`);
      size += groupSize + 1;
      targets = [];
      groupSize = frame;
    };
    for (const target of group.targets) {
      const text = JSON.stringify(target);
      if (size + groupSize + text.length + 1 > PIECE_BYTES && (targets.length > 0 || parts.length > 0)) {
        flush();
        close();
      }
      targets.push(text);
      groupSize += text.length + 1;
    }
    flush();
  }
  close();
  return texts;
}
