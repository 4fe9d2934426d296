/**
 * What a fine-tune changed in the tokenizer: two Tokenizer sections (analysis/tokenizer/) side by side. The fields
 * that decide how a prompt is built and where generation stops (special tokens and their ids, added tokens, stop
 * ids, BOS/EOS added on encoding, the chat templates line by line); a field equal on both sides is left out. Pure.
 */
import type {
  AddedToken,
  ChatTemplateEntry,
  TokenizerSection,
  VocabularyFacts,
} from '../analysis/tokenizer/tokenizer-types';
import { MAX_TEMPLATE_DIFF_PIECES, MAX_TOKENS_LISTED_PER_SIDE } from '../limits';
import { tokenizerSectionOfGguf } from '../analysis/tokenizer/gguf-tokenizer';
import type { LoadResult } from '../result';

export interface FieldChange {
  field: string;
  a: string;
  b: string;
}

/** One piece of a template diff (a line, or a Jinja tag and the text after it): kept, removed from A, or added in B. */
export interface DiffLine {
  kind: 'same' | 'removed' | 'added';
  text: string;
}

export interface TemplateChange {
  name: string;
  status: 'changed' | 'only-a' | 'only-b';
  /** The diff of a changed template, piece by piece; null past MAX_TEMPLATE_DIFF_PIECES pieces a side. */
  lines: DiffLine[] | null;
}

export interface TokenizerDiff {
  fields: FieldChange[];
  /** Added tokens by id: only in B (a fine-tune's new tokens), only in A, or another text at the same id. */
  onlyInB: AddedToken[];
  onlyInA: AddedToken[];
  retexted: { id: number; a: string; b: string }[];
  /** Counts before the lists above were capped at MAX_TOKENS_LISTED_PER_SIDE. */
  counts: { onlyInB: number; onlyInA: number; retexted: number };
  templates: TemplateChange[];
  /** Templates identical on both sides, by name. */
  sameTemplates: string[];
  identical: boolean;
}

const NONE = '—';

/** The tokenizer a compare side has: its tokenizer files' section, or for a GGUF its own header's. */
export function comparedTokenizer(result: LoadResult): TokenizerSection | undefined {
  const gguf = result.outcome.kind === 'parsed' ? result.outcome.header.gguf : undefined;
  return result.sections.tokenizer ?? (gguf ? (tokenizerSectionOfGguf(gguf) ?? undefined) : undefined);
}

export function diffTokenizers(a: TokenizerSection, b: TokenizerSection): TokenizerDiff {
  const fields: FieldChange[] = [];
  const field = (name: string, valueA: string, valueB: string) => {
    if (valueA !== valueB) {
      fields.push({ field: name, a: valueA, b: valueB });
    }
  };
  // A GGUF records no tokenizer class, maximum length or generate() stop list (llama.cpp stops at every
  // end-of-generation token it knows): against a transformers model's files, those are not differences.
  const sameKind = a.source === b.source;
  if (sameKind) {
    field('tokenizer class', a.tokenizerClass ?? NONE, b.tokenizerClass ?? NONE);
    field('max length', String(a.modelMaxLength ?? NONE), String(b.modelMaxLength ?? NONE));
  }
  if (sameKind || (a.addBosToken !== null && b.addBosToken !== null)) {
    field('adds BOS', String(a.addBosToken ?? NONE), String(b.addBosToken ?? NONE));
  }
  if (sameKind || (a.addEosToken !== null && b.addEosToken !== null)) {
    field('adds EOS', String(a.addEosToken ?? NONE), String(b.addEosToken ?? NONE));
  }
  for (const role of ['bos', 'eos', 'pad', 'unk'] as const) {
    field(`${role.toUpperCase()} token`, specialOf(a, role), specialOf(b, role));
  }
  if (sameKind) {
    field('stops at', stopsOf(a), stopsOf(b));
  }
  if (a.ggufPre !== undefined && b.ggufPre !== undefined) {
    // Two GGUFs' byte-level BPEs: another name cuts text otherwise before the merges (llama.cpp's default if none).
    field('pre-tokenizer (tokenizer.ggml.pre)', a.ggufPre ?? NONE, b.ggufPre ?? NONE);
  }
  if (a.vocabulary && b.vocabulary) {
    for (const [name, of] of VOCABULARY_FIELDS) {
      field(name, of(a.vocabulary), of(b.vocabulary));
    }
  }
  const tokens = diffAdded(a, b);
  const { templates, same } = diffTemplates(a.templates, b.templates);
  return {
    fields,
    ...tokens,
    templates,
    sameTemplates: same,
    identical:
      fields.length === 0 &&
      tokens.counts.onlyInA + tokens.counts.onlyInB + tokens.counts.retexted === 0 &&
      templates.length === 0,
  };
}

/** tokenizer.json's facts compared once both sides read it: how text becomes tokens, and how many there are. */
const VOCABULARY_FIELDS: ReadonlyArray<[string, (v: VocabularyFacts) => string]> = [
  ['tokenizer.json model', (v) => v.model],
  ['tokens (len(tokenizer))', (v) => String(v.totalTokens)],
  ['highest id', (v) => String(v.highestId ?? NONE)],
  ['merges', (v) => String(v.merges ?? NONE)],
  ['normalizer', (v) => v.normalizer.join(' → ') || NONE],
  ['pre-tokenizer', (v) => v.preTokenizer.join(' → ') || NONE],
  ['tokenizer(text) gives', (v) => v.template ?? '$A'],
  ['decoder', (v) => v.decoder.join(' → ') || NONE],
];

function specialOf(section: TokenizerSection, role: string): string {
  const token = section.special.find((special) => special.role === role);
  return token === undefined ? NONE : token.id === null ? token.text : `${token.text} (${token.id})`;
}

function stopsOf(section: TokenizerSection): string {
  return section.generation === null ? NONE : section.generation.eosIds.join(', ') || NONE;
}

function diffAdded(sectionA: TokenizerSection, sectionB: TokenizerSection) {
  // A side whose list was capped says nothing of the ids past its last kept one.
  const limit = Math.min(keptThrough(sectionA), keptThrough(sectionB));
  const a = sectionA.addedTokens.filter((token) => token.id <= limit);
  const b = sectionB.addedTokens.filter((token) => token.id <= limit);
  const byIdA = new Map(a.map((token) => [token.id, token.text]));
  const byIdB = new Map(b.map((token) => [token.id, token.text]));
  const onlyInB = b.filter((token) => !byIdA.has(token.id));
  const onlyInA = a.filter((token) => !byIdB.has(token.id));
  const retexted = a.flatMap((token) => {
    const other = byIdB.get(token.id);
    return other !== undefined && other !== token.text ? [{ id: token.id, a: token.text, b: other }] : [];
  });
  return {
    onlyInB: onlyInB.slice(0, MAX_TOKENS_LISTED_PER_SIDE),
    onlyInA: onlyInA.slice(0, MAX_TOKENS_LISTED_PER_SIDE),
    retexted: retexted.slice(0, MAX_TOKENS_LISTED_PER_SIDE),
    counts: { onlyInB: onlyInB.length, onlyInA: onlyInA.length, retexted: retexted.length },
  };
}

/** The highest id a side's added-token list is complete through: all of them unless the list was capped. */
function keptThrough(section: TokenizerSection): number {
  const kept = section.addedTokens;
  return section.addedTokenCount > kept.length && kept.length > 0
    ? Math.max(...kept.map((token) => token.id))
    : Number.POSITIVE_INFINITY;
}

function diffTemplates(
  a: readonly ChatTemplateEntry[],
  b: readonly ChatTemplateEntry[],
): { templates: TemplateChange[]; same: string[] } {
  const templates: TemplateChange[] = [];
  const same: string[] = [];
  for (const entry of a) {
    const other = b.find((candidate) => candidate.name === entry.name);
    if (other === undefined) {
      templates.push({ name: entry.name, status: 'only-a', lines: null });
    } else if (other.source === entry.source) {
      same.push(entry.name);
    } else {
      templates.push({ name: entry.name, status: 'changed', lines: templateDiff(entry.source, other.source) });
    }
  }
  for (const entry of b) {
    if (!a.some((candidate) => candidate.name === entry.name)) {
      templates.push({ name: entry.name, status: 'only-b', lines: null });
    }
  }
  return { templates, same };
}

/**
 * Templates are often one long line (`{% for message in messages %}{{ … }}{% endfor %}`), so they are compared in
 * pieces: each line, cut again before every `{%`, `{{` and `{#`.
 */
function piecesOf(template: string): string[] {
  return template.split('\n').flatMap((line) => line.split(/(?=\{[%{#])/));
}

/** A longest-common-subsequence diff of the two templates' pieces; null when either has too many for it. */
export function templateDiff(a: string, b: string): DiffLine[] | null {
  const linesA = piecesOf(a);
  const linesB = piecesOf(b);
  if (linesA.length > MAX_TEMPLATE_DIFF_PIECES || linesB.length > MAX_TEMPLATE_DIFF_PIECES) {
    return null;
  }
  const width = linesB.length + 1;
  // common[i * width + j]: the LCS length of linesA[i…] and linesB[j…].
  const common = new Uint16Array((linesA.length + 1) * width);
  for (let i = linesA.length - 1; i >= 0; i--) {
    for (let j = linesB.length - 1; j >= 0; j--) {
      common[i * width + j] =
        linesA[i] === linesB[j]
          ? common[(i + 1) * width + j + 1] + 1
          : Math.max(common[(i + 1) * width + j], common[i * width + j + 1]);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < linesA.length || j < linesB.length) {
    if (i < linesA.length && j < linesB.length && linesA[i] === linesB[j]) {
      lines.push({ kind: 'same', text: linesA[i] });
      i++;
      j++;
    } else if (i < linesA.length && (j === linesB.length || common[(i + 1) * width + j] >= common[i * width + j + 1])) {
      // On a tie the removal goes first, as unified diffs show a replaced piece.
      lines.push({ kind: 'removed', text: linesA[i] });
      i++;
    } else {
      lines.push({ kind: 'added', text: linesB[j] });
      j++;
    }
  }
  return lines;
}
