/**
 * A GGUF model split by llama.cpp's `gguf-split` (`name-00001-of-00003.gguf` …): the set's checks and its GGUF
 * section. The rules are llama-model-loader's (llama.cpp `src/llama-model-loader.cpp`): the first file carries the
 * metadata and `split.count`; every file carries `split.no` (0-based), which must match its place in the set; all
 * `split.count` files must be present; a tensor name appears in one file only; and the tensors of all files add up
 * to the first file's `split.tensors.count`. Each file's tensor offsets count from its own data start, so the rows
 * keep their file (the shard column) and values are read from that file.
 */
import { makeFinding } from '../../findings/make-finding';
import type { Finding, ParsedHeader } from '../../model';
import { MAX_NAMES_IN_MESSAGE } from '../../limits';
import { formatCount, plural, quoteNames } from '../../parse/message-format';
import type { ShardNaming, ShardPart } from '../format-reader';
import type { GgufSummary } from './gguf-types';
import { quantMix } from './summary';

/** llama.cpp's split names (`llama_split_path`: `%s-%05d-of-%05d.gguf`, 1-based), found from any one of them. */
export const GGUF_SHARD_NAMING: ShardNaming = {
  extension: 'gguf',
  separators: '-',
  digits: [5, 5],
  siblingsByName: true,
};

const SPLIT_NAME = /^(.*)-(\d{5})-of-(\d{5})\.gguf$/;

/** Findings the set replaces with its own: the lone-file note, and the generic name and missing-file checks. */
const REPLACED_CODES: ReadonlySet<string> = new Set(['gguf-split-part', 'shard-count-mismatch', 'missing-shard']);

/** The name llama.cpp gives split `no` (0-based) of the set `member` belongs to; null when `member` is not so named. */
export function splitFileName(member: string, no: number, count: number): string | null {
  const match = SPLIT_NAME.exec(member);
  if (!match) {
    return null;
  }
  const pad = (value: number) => String(value).padStart(5, '0');
  return `${match[1]}-${pad(no + 1)}-of-${pad(count)}.gguf`;
}

/** The note on one split file opened alone: what it holds, and how to open the whole model. */
/** Whether the file is one split of a set of several (`split.count` above 1). */
export function inSplitSet(gguf: GgufSummary): boolean {
  return gguf.split !== null && gguf.split.count > 1;
}

export function splitPartFinding(gguf: GgufSummary): Finding | null {
  const split = gguf.split;
  if (split === null || !inSplitSet(gguf)) {
    return null;
  }
  const total = split.tensors === null ? '' : ` of the model's ${formatCount(split.tensors)}`;
  return makeFinding(
    'gguf-split-part',
    `This file is split ${split.no + 1} of ${split.count} of a model split by llama.cpp's gguf-split: it holds ` +
      `${plural(gguf.tensorCount, 'tensor')}${total}${split.no === 0 ? ' and the metadata' : ''}. To see the ` +
      `whole model, open all ${split.count} files together (drop their folder or select every file), or paste the ` +
      'URL of any one of them: the others are found by their names.',
  );
}

interface Member {
  file: string;
  gguf: GgufSummary;
  tensors: number;
}

/** The set as one GGUF: the first present file's section over every file's tensors, and the set's findings. */
export function mergeGgufSplits(parts: readonly ShardPart[], merged: ParsedHeader): ParsedHeader | null {
  const present = parts.filter((part) => part.header !== null);
  if (present.length === 0 || present.some((part) => part.header?.format !== 'gguf' || !part.header.gguf)) {
    return null;
  }
  const members: Member[] = present.map((part) => {
    const header = part.header as ParsedHeader;
    return { file: part.file, gguf: header.gguf as GgufSummary, tensors: header.tensors.count };
  });
  const first = members[0];
  const gguf: GgufSummary = {
    ...first.gguf,
    tensorCount: merged.tensors.count,
    quantMix: quantMix(merged.tensors, merged.unknownDtypes),
  };
  const findings = merged.findings.filter((finding) => !REPLACED_CODES.has(finding.code));
  return { ...merged, format: 'gguf', gguf, findings: [...splitFindings(parts, members), ...findings] };
}

function splitFindings(parts: readonly ShardPart[], members: readonly Member[]): Finding[] {
  const findings: Finding[] = [];
  const withKeys = members.filter((member) => member.gguf.split !== null);
  const unsplit = members.filter((member) => member.gguf.split === null);
  if (unsplit.length > 0) {
    findings.push(
      makeFinding(
        'gguf-split-misnumbered',
        `${quoteNames(unsplit.map((member) => member.file))} ${unsplit.length === 1 ? 'has' : 'have'} no split.no ` +
          'and split.count keys, so llama.cpp does not take them for part of a split set (it refuses a split without ' +
          'split.no, and loads a first file without split.count as a model of its own). Re-split the model with ' +
          'llama-gguf-split, or open the files one by one.',
      ),
    );
  }
  // split.count and split.tensors.count as the first split states them (llama.cpp reads both from the first file).
  const lead = withKeys.find((member) => member.gguf.split?.no === 0) ?? withKeys[0];
  if (!lead?.gguf.split) {
    return findings;
  }
  const count = lead.gguf.split.count;
  const otherCounts = withKeys.filter((member) => member.gguf.split?.count !== count);
  if (otherCounts.length > 0) {
    findings.push(
      makeFinding(
        'gguf-split-count-mismatch',
        `${quoteNames([lead.file])} says the model is ${plural(count, 'file')} (split.count), but ` +
          `${otherCounts.map((member) => `"${member.file}" says ${member.gguf.split?.count}`).join(', ')}. The files ` +
          'come from different runs of gguf-split (another quant or another split size); llama.cpp reads split.count ' +
          'from the first file only, so it may load a mix that is not one model. Download the set again.',
      ),
    );
  }
  findings.push(...numberingFindings(parts, withKeys));
  const missing = missingSplits(parts, withKeys, count, lead.file);
  if (missing.length > 0) {
    const shown = missing.slice(0, MAX_NAMES_IN_MESSAGE).map((entry) => {
      const name = JSON.stringify(entry.file);
      return entry.reason === undefined ? name : `${name} (${entry.reason})`;
    });
    const more = missing.length - shown.length;
    const described = `${shown.join(', ')}${more > 0 ? ` and ${formatCount(more)} more` : ''}`;
    const firstMissing = missing.some((entry) => entry.no === 0);
    findings.push(
      makeFinding(
        'gguf-split-missing',
        `split.count says this model is ${plural(count, 'file')}, but ${plural(missing.length, 'split')} ` +
          `${missing.length === 1 ? 'is' : 'are'} missing: ${described}. llama.cpp refuses an ` +
          `incomplete set, and the tensors ${missing.length === 1 ? 'it holds are' : 'they hold are'} missing from ` +
          `this view${firstMissing ? ', as is the metadata (architecture, tokenizer, chat template), which only the first split holds' : ''}. ` +
          'Download the missing files and open all of them together (their folder, or every file).',
        [],
        { shard: missing[0].file },
      ),
    );
    return findings;
  }
  const declared = lead.gguf.split.tensors;
  const found = members.reduce((sum, member) => sum + member.tensors, 0);
  if (declared !== null && declared !== found) {
    findings.push(
      makeFinding(
        'gguf-split-tensor-count',
        `The first split says the model has ${plural(declared, 'tensor')} (split.tensors.count), but its ` +
          `${plural(members.length, 'file')} hold ${formatCount(found)}. llama.cpp refuses the set ("corrupted model: ` +
          `${declared} tensors expected but ${found} found"). A file is from another split of the model, or was ` +
          'edited: download the set again.',
      ),
    );
  }
  return findings;
}

/** Two files with one split.no, and files whose split.no is not the number in their name. */
function numberingFindings(parts: readonly ShardPart[], withKeys: readonly Member[]): Finding[] {
  const findings: Finding[] = [];
  const byNo = new Map<number, string[]>();
  for (const member of withKeys) {
    const no = member.gguf.split?.no ?? 0;
    byNo.set(no, [...(byNo.get(no) ?? []), member.file]);
  }
  for (const [no, files] of [...byNo].sort((a, b) => a[0] - b[0])) {
    if (files.length > 1) {
      findings.push(
        makeFinding(
          'gguf-split-duplicate',
          `${quoteNames(files)} all say they are split ${no + 1} (split.no ${no}). Only one of them belongs to this ` +
            'set; llama.cpp opens the one whose name matches and refuses the set if that one is wrong. Keep the ' +
            'files of one download together and remove the others.',
          [],
          { shard: files[1] },
        ),
      );
    }
  }
  const nameNumber = new Map(parts.map((part) => [part.file, part.nameNumber]));
  for (const member of withKeys) {
    const named = nameNumber.get(member.file);
    const no = member.gguf.split?.no ?? 0;
    if (named !== null && named !== undefined && named !== no + 1) {
      findings.push(
        makeFinding(
          'gguf-split-misnumbered',
          `"${member.file}" is named as split ${named}, but its split.no says it is split ${no + 1} (split.no ${no}). ` +
            'llama.cpp opens splits by name and refuses this one ("invalid split file idx"). The file was renamed ' +
            'or belongs to another set: download the set again.',
          [],
          { shard: member.file },
        ),
      );
    }
  }
  return findings;
}

/** Split numbers no present file holds: the parts that failed (with why), and numbers no file was given for. */
function missingSplits(
  parts: readonly ShardPart[],
  withKeys: readonly Member[],
  count: number,
  leadFile: string,
): Array<{ no: number; file: string; reason?: string }> {
  const held = new Set(withKeys.map((member) => member.gguf.split?.no ?? 0));
  const missing: Array<{ no: number; file: string; reason?: string }> = [];
  const failedByNo = new Map<number, ShardPart>();
  for (const part of parts) {
    if (part.header === null && part.nameNumber !== null) {
      failedByNo.set(part.nameNumber - 1, part);
    }
  }
  for (let no = 0; no < count; no++) {
    if (held.has(no)) {
      continue;
    }
    const failed = failedByNo.get(no);
    const file = failed?.file ?? splitFileName(leadFile, no, count) ?? `split ${no + 1} of ${count}`;
    missing.push(failed?.reason === undefined ? { no, file } : { no, file, reason: failed.reason });
  }
  return missing;
}
