/** Finding codes raised when checking shards against each other and against the index. */
import type { Severity } from '../model';

export const SHARD_CODES = {} as const satisfies Record<string, { severity: Severity; refusedByReference: boolean; title: string }>;
