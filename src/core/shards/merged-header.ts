/**
 * The one ParsedHeader a sharded model is shown as: aggregateShards' merged columns, with totals over the present
 * shards and every finding (index and cross-shard checks first, then each shard's own header findings, folded so
 * that 163 shards with the same quirk do not list it 163 times). The table, summary, charts and analyses then work
 * on it exactly as on a single file.
 */
import { metadataColumns, type Finding, type ParsedHeader } from '../model';
import type { ShardedModel } from './aggregate';
import { foldFindingsPerCode } from './fold-findings';
import { plural, quoteNames } from '../parse/message-format';

/**
 * Shards listed per header-finding code before the rest are folded into one "…and N more shards" finding: enough
 * to show whether the problem is one bad file or every file, short enough to keep the findings panel readable.
 */
export const MAX_SHARD_HEADER_FINDINGS_PER_CODE = 5;

/**
 * `firstHeader` is the header of the first present shard: its `__metadata__` stands for the model's (writers
 * put the same metadata, usually just `format`, into every shard).
 */
export function mergedHeader(model: ShardedModel, firstHeader: ParsedHeader | null): ParsedHeader {
  let headerLength = 0;
  let fileSize: number | null = 0;
  for (const shard of model.shards) {
    if (!shard.present) {
      continue;
    }
    headerLength += shard.headerLength;
    fileSize = fileSize === null || shard.fileSize === null ? null : fileSize + shard.fileSize;
  }
  return {
    headerLength,
    dataStart: firstHeader?.dataStart ?? 0,
    fileSize: model.totals.presentShards > 0 ? fileSize : null,
    tensors: model.columns,
    unknownDtypes: model.unknownDtypes,
    metadataState: firstHeader?.metadataState ?? 'absent',
    metadata: firstHeader?.metadata ?? metadataColumns([]),
    dataBytes: model.totals.dataBytes,
    findings: [...model.findings, ...foldHeaderFindings(model.headerFindings)],
    ...(model.namesDistinct ? { namesDistinct: true as const } : {}),
  };
}

/** Keeps MAX_SHARD_HEADER_FINDINGS_PER_CODE findings per code; the rest become one finding naming their shards. */
export function foldHeaderFindings(findings: readonly Finding[]): Finding[] {
  return foldFindingsPerCode(
    findings,
    MAX_SHARD_HEADER_FINDINGS_PER_CODE,
    (folded, shards) =>
      `…and ${plural(folded.length, 'more shard')} with the same finding (${quoteNames(shards.slice(0, 5), shards.length)}). ` +
      `The first one says: ${folded[0].message}`,
  );
}
