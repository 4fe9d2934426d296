/**
 * Pair a GGUF's tensors with the Hugging Face safetensors of the same model (names mapped by gguf-names.ts) and
 * compare their shapes in PyTorch order. The E per-expert Hugging Face tensors of one stacked GGUF tensor form one
 * row: its Hugging Face shape is `[E, …]` when experts 0..E−1 are all there with one shape.
 *
 * Hugging Face names may sit under a wrapper (`language_model.` in vision-language checkpoints): the prefix in
 * front of `model.embed_tokens.weight` / `model.layers.0.` is found once and stripped before mapping.
 */
import { ggufNameOfHf, hfNameOfGguf, type GgufNameRelation } from './gguf-names';

export interface NamedShape {
  name: string;
  /** PyTorch order (for a GGUF tensor: its `ne` reversed). */
  shape: readonly number[];
}

export type GgufHfStatus = 'match' | 'shape' | 'derived' | 'only-gguf' | 'only-hf' | 'no-hf-counterpart';

export interface GgufHfRow {
  /** The Hugging Face name, or the per-expert pattern with `*`; the GGUF name for a row only in the GGUF. */
  key: string;
  gguf: number | null;
  /** Indices into the Hugging Face list: one, or E for stacked experts (in expert order). */
  hf: number[];
  relation: GgufNameRelation | null;
  status: GgufHfStatus;
  ggufShape: readonly number[] | null;
  /** For stacked experts, `[present experts, …per-expert shape]`. */
  hfShape: readonly number[] | null;
  note: string | null;
}

export interface GgufHfAlignment {
  arch: string;
  /** Wrapper prefix stripped from Hugging Face names ('' when none). */
  hfPrefix: string;
  rows: GgufHfRow[];
  counts: Record<GgufHfStatus, number>;
}

/** Tensors llama.cpp computes at conversion and Hugging Face does not store. */
const NO_HF_COUNTERPART = new Set(['rope_freqs.weight']);

/** Experts listed by number in a note before it says "and N more". */
const LISTED_EXPERTS = 8;

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((dim, i) => dim === b[i]);
}

function hfPrefixOf(names: readonly string[]): string {
  for (const name of names) {
    const at = name.indexOf('model.embed_tokens.weight');
    if (at >= 0 && at + 'model.embed_tokens.weight'.length === name.length) {
      return name.slice(0, at);
    }
  }
  for (const name of names) {
    const at = name.indexOf('model.layers.0.');
    if (at >= 0) {
      return name.slice(0, at);
    }
  }
  return '';
}

/** Per-expert Hugging Face names grouped under their `experts.*` pattern: pattern → expert index → row. */
function expertGroups(stripped: readonly string[]): Map<string, Map<number, number>> {
  const groups = new Map<string, Map<number, number>>();
  stripped.forEach((name, row) => {
    const match = /^(.*\.experts)\.(\d+)\.(.+)$/.exec(name);
    if (!match) {
      return;
    }
    const pattern = `${match[1]}.*.${match[3]}`;
    let group = groups.get(pattern);
    if (!group) {
      group = new Map();
      groups.set(pattern, group);
    }
    group.set(Number(match[2]), row);
  });
  return groups;
}

function listExperts(experts: number[]): string {
  const shown = experts.slice(0, LISTED_EXPERTS).join(', ');
  return experts.length > LISTED_EXPERTS ? `${shown} and ${experts.length - LISTED_EXPERTS} more` : shown;
}

function stackedRow(
  ggufRow: number,
  tensor: NamedShape,
  candidates: string[],
  groups: Map<string, Map<number, number>>,
  hf: readonly NamedShape[],
): GgufHfRow {
  const pattern = candidates.find((candidate) => groups.has(candidate));
  const base = { gguf: ggufRow, relation: 'stacked-experts' as const, ggufShape: tensor.shape };
  if (pattern === undefined) {
    return { ...base, key: candidates[0], hf: [], status: 'only-gguf', hfShape: null, note: 'no per-expert tensors' };
  }
  const group = groups.get(pattern) ?? new Map<number, number>();
  const expected = tensor.shape[0] ?? 0;
  const rows = [...group.entries()].sort((a, b) => a[0] - b[0]);
  const missing: number[] = [];
  for (let expert = 0; expert < expected; expert++) {
    if (!group.has(expert)) {
      missing.push(expert);
    }
  }
  const extra = rows.filter(([expert]) => expert >= expected).map(([expert]) => expert);
  const firstShape = rows.length > 0 ? hf[rows[0][1]].shape : [];
  const odd = rows.filter(([, row]) => !sameShape(hf[row].shape, firstShape)).map(([expert]) => expert);
  const hfShape = [rows.length, ...firstShape];
  const problems: string[] = [];
  if (missing.length > 0) {
    problems.push(`experts ${listExperts(missing)} missing`);
  }
  if (extra.length > 0) {
    problems.push(`experts ${listExperts(extra)} beyond the ${expected} stacked`);
  }
  if (odd.length > 0) {
    problems.push(`experts ${listExperts(odd)} shaped unlike expert ${rows[0][0]}`);
  }
  const matches = problems.length === 0 && sameShape(hfShape, tensor.shape);
  return {
    ...base,
    key: pattern,
    hf: rows.map(([, row]) => row),
    status: matches ? 'match' : 'shape',
    hfShape,
    note:
      problems.length > 0
        ? problems.join('; ')
        : `${rows.length} per-expert tensors stacked into one${matches ? '' : ' of another shape'}`,
  };
}

export function alignGgufWithHf(gguf: readonly NamedShape[], hf: readonly NamedShape[], arch: string): GgufHfAlignment {
  const hfPrefix = hfPrefixOf(hf.map((tensor) => tensor.name));
  const stripped = hf.map((tensor) =>
    hfPrefix && tensor.name.startsWith(hfPrefix) ? tensor.name.slice(hfPrefix.length) : tensor.name,
  );
  const byName = new Map<string, number>();
  stripped.forEach((name, row) => byName.set(name, row));
  const groups = expertGroups(stripped);
  const used = new Uint8Array(hf.length);
  const rows: GgufHfRow[] = [];
  gguf.forEach((tensor, row) => {
    const counterpart = hfNameOfGguf(tensor.name, arch);
    if (!counterpart) {
      const computed = NO_HF_COUNTERPART.has(tensor.name);
      rows.push({
        key: tensor.name,
        gguf: row,
        hf: [],
        relation: null,
        status: computed ? 'no-hf-counterpart' : 'only-gguf',
        ggufShape: tensor.shape,
        hfShape: null,
        note: computed ? 'computed by the converter from rope_scaling' : `no Hugging Face name known for ${arch}`,
      });
      return;
    }
    if (counterpart.relation === 'stacked-experts') {
      const stacked = stackedRow(row, tensor, counterpart.candidates, groups, hf);
      stacked.hf.forEach((index) => (used[index] = 1));
      rows.push({ ...stacked, key: hfPrefix + stacked.key });
      return;
    }
    const name = counterpart.candidates.find((candidate) => byName.has(candidate));
    const hfRow = name === undefined ? undefined : byName.get(name);
    if (name === undefined || hfRow === undefined) {
      rows.push({
        key: hfPrefix + counterpart.candidates[0],
        gguf: row,
        hf: [],
        relation: counterpart.relation,
        status: 'only-gguf',
        ggufShape: tensor.shape,
        hfShape: null,
        note: tensor.name === 'output.weight' ? 'the Hugging Face model ties lm_head to the embedding' : null,
      });
      return;
    }
    used[hfRow] = 1;
    const derived = counterpart.relation === 'derived';
    rows.push({
      key: hf[hfRow].name,
      gguf: row,
      hf: [hfRow],
      relation: counterpart.relation,
      status: derived ? 'derived' : sameShape(tensor.shape, hf[hfRow].shape) ? 'match' : 'shape',
      ggufShape: tensor.shape,
      hfShape: hf[hfRow].shape,
      note: derived ? `split from ${hf[hfRow].name} by the converter` : null,
    });
  });
  stripped.forEach((name, row) => {
    if (used[row]) {
      return;
    }
    // A derived GGUF tensor may share its source with another; anything left is only in the Hugging Face file.
    const target = ggufNameOfHf(name, arch);
    rows.push({
      key: hf[row].name,
      gguf: null,
      hf: [row],
      relation: target?.relation ?? null,
      status: 'only-hf',
      ggufShape: null,
      hfShape: hf[row].shape,
      note: target ? `would be ${target.name}${target.expert !== null ? ` (expert ${target.expert})` : ''}` : null,
    });
  });
  const counts: Record<GgufHfStatus, number> = {
    match: 0,
    shape: 0,
    derived: 0,
    'only-gguf': 0,
    'only-hf': 0,
    'no-hf-counterpart': 0,
  };
  for (const entry of rows) {
    counts[entry.status]++;
  }
  return { arch, hfPrefix, rows, counts };
}
