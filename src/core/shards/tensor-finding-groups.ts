/**
 * The tensor-level findings of a shard set (index ↔ header and cross-shard checks), grouped per code and shard:
 * capped row lists, exact counts and a few quoted names, so 500,000 problems still give a short list.
 */
import { makeFinding } from '../findings/make-finding';
import { MAX_NAMES_IN_MESSAGE, MAX_TENSORS_PER_FINDING } from '../limits';
import type { Finding } from '../model';
import { formatCount, plural, quoteNames } from '../parse/message-format';

/** A shard position's file name: all the messages need of a slot. */
interface ShardFile {
  file: string;
}

export type TensorCode = 'unindexed-tensor' | 'wrong-shard' | 'duplicate-tensor-across-shards' | 'index-tensor-missing';

interface Group {
  rows: number[];
  count: number;
  examples: string[];
  /** The other shard each example relates to (wrong-shard: where the index says; duplicates: the first copy). */
  exampleOthers: number[];
  others: Set<number>;
}

/** Per code and shard: capped row lists, exact counts and a few quoted names. */
export class FindingGroups {
  private readonly groups = new Map<TensorCode, Map<number, Group>>();

  add(code: TensorCode, slot: number, row: number, rowName: (row: number) => string, other = -1): void {
    const group = this.group(code, slot);
    group.count++;
    if (group.rows.length < MAX_TENSORS_PER_FINDING) {
      group.rows.push(row);
    }
    if (group.examples.length < MAX_NAMES_IN_MESSAGE) {
      group.examples.push(rowName(row));
      group.exampleOthers.push(other);
    }
    if (other >= 0) {
      group.others.add(other);
    }
  }

  addName(code: TensorCode, slot: number, name: string): void {
    const group = this.group(code, slot);
    group.count++;
    if (group.examples.length < MAX_NAMES_IN_MESSAGE) {
      group.examples.push(name);
      group.exampleOthers.push(-1);
    }
  }

  findings(slots: readonly ShardFile[]): Finding[] {
    const findings: Finding[] = [];
    const order: TensorCode[] = [
      'index-tensor-missing',
      'wrong-shard',
      'unindexed-tensor',
      'duplicate-tensor-across-shards',
    ];
    for (const code of order) {
      const byShard = this.groups.get(code);
      if (!byShard) {
        continue;
      }
      for (const slot of [...byShard.keys()].sort((a, b) => a - b)) {
        const group = byShard.get(slot);
        if (group) {
          findings.push(groupFinding(code, slots, slot, group));
        }
      }
    }
    return findings;
  }

  private group(code: TensorCode, slot: number): Group {
    let byShard = this.groups.get(code);
    if (!byShard) {
      byShard = new Map();
      this.groups.set(code, byShard);
    }
    let group = byShard.get(slot);
    if (!group) {
      group = { rows: [], count: 0, examples: [], exampleOthers: [], others: new Set() };
      byShard.set(slot, group);
    }
    return group;
  }
}

function groupFinding(code: TensorCode, slots: readonly ShardFile[], slot: number, group: Group): Finding {
  const file = slots[slot].file;
  const count = plural(group.count, 'tensor');
  const names = quoteNames(group.examples, group.count);
  const otherFiles = (): string => {
    const others = [...group.others].sort((a, b) => a - b).map((other) => slots[other].file);
    return others.length > 3 ? `${others.slice(0, 3).join(', ')} and ${others.length - 3} more` : others.join(', ');
  };
  let message: string;
  switch (code) {
    case 'index-tensor-missing':
      message =
        `The index says ${file} holds ${count} that its header does not contain (${names}). Loaders that follow ` +
        `the index fail on them; transformers reports them as missing keys and leaves those weights randomly ` +
        `initialised. The shard or the index is from a different upload: re-download both.`;
      break;
    case 'wrong-shard': {
      const pairs = group.examples
        .map((name, i) => `${JSON.stringify(name)} (index: ${slots[group.exampleOthers[i]]?.file ?? '?'})`)
        .join(', ');
      const rest = group.count - group.examples.length;
      message =
        `${count} in ${file} ${group.count === 1 ? 'is' : 'are'} listed under another shard in the index: ${pairs}` +
        `${rest > 0 ? ` and ${formatCount(rest)} more` : ''}. Loaders that read every shard still find them; ` +
        `tools that open only the shard the index names will not. Regenerate the index from the shards.`;
      break;
    }
    case 'unindexed-tensor':
      message =
        `${file} holds ${count} that the index does not list (${names}). Tools that look tensors up through ` +
        `the index never see them; loaders that read whole shards (transformers) load them, and warn about ` +
        `unexpected keys if the model has no such weight. If they are real weights, regenerate the index; if ` +
        `they are leftovers, they only cost disk space.`;
      break;
    case 'duplicate-tensor-across-shards':
      message =
        `${count} in ${file} also ${group.count === 1 ? 'appears' : 'appear'} in ${otherFiles()} (${names}). ` +
        `Which copy a loader keeps depends on ` +
        `the order it reads shards in; if the copies differ, results differ between tools. Keep one copy.`;
      break;
  }
  const rows = code === 'index-tensor-missing' ? [] : group.rows;
  return makeFinding(code, message, rows, { tensorCount: group.count, shard: file });
}
