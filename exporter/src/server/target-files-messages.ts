/**
 * What the thread loading the target files of --sd.targets-dir (./target-files.ts) is given and answers; apart
 * from it, so that the exporter's entry point can name the thread's role without loading the thread's code.
 */
import type { Problem } from '../contract/problems';

export const TARGET_FILES_ROLE = 'probekit-target-files';

export interface TargetFilesInput {
  readonly role: typeof TARGET_FILES_ROLE;
  readonly dir: string;
  readonly previousChecksum?: string;
}

export type TargetFilesReply =
  | { readonly kind: 'unchanged' }
  | {
      readonly kind: 'loaded';
      readonly checksum: string;
      readonly files: number;
      readonly jobs: ReadonlyArray<{ name: string; gzipped: Uint8Array; etag: string; targets: number; groups: number }>;
    }
  | { readonly kind: 'refused'; readonly file: string; readonly problems: readonly Problem[] }
  | { readonly kind: 'failed'; readonly message: string };
