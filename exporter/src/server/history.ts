/** The last probes (--history.limit of them), for the status page and their debug logs. */
import type { ProbeFailure } from '../contract/failure-reasons';

export interface ProbeRecord {
  readonly id: number;
  readonly module: string;
  readonly target: string;
  readonly success: boolean;
  /** Why the probe failed; absent when it succeeded. */
  readonly failure?: ProbeFailure;
  readonly at: Date;
  /** The probe's debug text (its log, its metrics, its module), written when first asked for. */
  readonly debugOutput: () => string;
}

export class ProbeHistory {
  private readonly records: ProbeRecord[] = [];
  private nextId = 0;

  constructor(private readonly limit: number) {}

  add(record: Omit<ProbeRecord, 'id' | 'at'>): ProbeRecord {
    const stored = { ...record, id: this.nextId++, at: new Date() };
    if (this.limit <= 0) return stored;
    this.records.push(stored);
    if (this.records.length > this.limit) this.records.shift();
    return stored;
  }

  /** Newest first. */
  list(): readonly ProbeRecord[] {
    return [...this.records].reverse();
  }

  get(id: number): ProbeRecord | undefined {
    return this.records.find((record) => record.id === id);
  }
}

/**
 * The `id` of /logs?id=N, read as upstream reads it (Go's strconv.ParseInt(text, 10, 64)): decimal digits
 * after an optional sign, within 64 bits; anything else (empty, 0x1, 1.0, 1e3, a space) is no id.
 */
export function parseProbeId(text: string | null): number | undefined {
  if (text === null || !/^[+-]?[0-9]+$/.test(text)) return undefined;
  const id = BigInt(text);
  if (id < -(2n ** 63n) || id >= 2n ** 63n) return undefined;
  return Number(id);
}
