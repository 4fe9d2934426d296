/** Folding a shard set's repeated findings: one finding per code and shard reads well; 163 of them do not. */
import type { FindingCode } from '../findings/codes';
import { makeFinding } from '../findings/make-finding';
import { MAX_TENSORS_PER_FINDING } from '../limits';
import type { Finding } from '../model';

/**
 * Keeps every code's findings up to `maxPerCode`; a code with more keeps its first `maxPerCode - 1` and folds the
 * rest into one finding with their tensors (capped) and tensor count, whose message `describe` writes from the
 * folded findings and the shards they name. Codes keep their first-seen order.
 */
export function foldFindingsPerCode(
  findings: readonly Finding[],
  maxPerCode: number,
  describe: (folded: readonly Finding[], shards: readonly string[]) => string,
): Finding[] {
  const byCode = new Map<FindingCode, Finding[]>();
  for (const finding of findings) {
    const list = byCode.get(finding.code);
    if (list) {
      list.push(finding);
    } else {
      byCode.set(finding.code, [finding]);
    }
  }
  const result: Finding[] = [];
  for (const [code, list] of byCode) {
    if (list.length <= maxPerCode) {
      result.push(...list);
      continue;
    }
    const kept = list.slice(0, maxPerCode - 1);
    const folded = list.slice(maxPerCode - 1);
    const shards = folded.map((finding) => finding.shard).filter((shard): shard is string => shard !== undefined);
    result.push(
      ...kept,
      makeFinding(
        code,
        describe(folded, shards),
        folded.flatMap((finding) => finding.tensors).slice(0, MAX_TENSORS_PER_FINDING),
        { tensorCount: folded.reduce((sum, finding) => sum + finding.tensorCount, 0) },
      ),
    );
  }
  return result;
}
