/**
 * The probers by the name a module's `prober` field uses. Adding a prober is one file plus one line here.
 */
import type { ProberName } from '../interface';
import { probeHttp } from './http';
import type { Prober } from './types';

export const PROBERS: Partial<Record<ProberName, Prober>> = {
  http: probeHttp,
};
