/**
 * What llama.cpp's vocabulary loader (llama-vocab.cpp `llama_vocab::impl::load`) and its tensor check
 * (llama-model-loader's `check_tensor_dims`) make of a GGUF's tokenizer, as findings: the files it refuses or aborts
 * on (a BPE without merges, score or type arrays shorter than the token list, two ids with the same text, an
 * embedding whose rows are not the token count) and the ones it loads with a warning (a BPE without its
 * pre-tokenizer, a special token id past the list); a pre-tokenizer name it does not know, which builds up to the
 * one read for llama-pre-tokenizers.json refuse, is a warning since newer builds add names. A file whose tokenizer
 * is `none`/`no_vocab`, or that has no tokenizer keys at all (a projector, an adapter), is not checked.
 */
import { stringDecoder } from '../../bytes/string-decoder';
import { makeFinding } from '../../findings/make-finding';
import type { Finding } from '../../model';
import { groupDigits } from '../../number-format';
import { isArray } from './summary';
import { readStrings } from './token-pages';
import type { GgufRawHeader, GgufTensorInfo, GgufValue } from './header-parser';
import type { GgufSummary } from './gguf-types';
import { findDuplicateRanges, hashBytes } from '../../parse/duplicate-names';
import { LLAMA_CPP_PRE_NAMES } from '../../analysis/tokenizer/llama-pre-tokenizers';

/** Tokenizer models llama.cpp loads with no vocabulary at all. */
const NO_VOCABULARY = new Set(['none', 'no_vocab']);

/** The tensors llama.cpp creates as {n_embd, n_vocab}, n_vocab being the token count. */
const VOCABULARY_TENSORS = ['token_embd.weight', 'output.weight'];

/** Duplicates named in the finding; the rest are counted. */
const DUPLICATES_NAMED = 5;

export function vocabularyFindings(
  gguf: GgufSummary,
  raw: Pick<GgufRawHeader, 'kvs' | 'littleEndian' | 'version'>,
  head: Uint8Array,
  tensors: readonly GgufTensorInfo[],
): Finding[] {
  const tokenizer = gguf.tokenizer;
  if (tokenizer === null || (tokenizer.model !== null && NO_VOCABULARY.has(tokenizer.model))) {
    return [];
  }
  const byKey = new Map(raw.kvs.map((kv) => [kv.key, kv.value]));
  const count = tokenizer.tokens.count;
  if (count === 0) {
    return tokenizer.model === null
      ? []
      : [
          makeFinding(
            'gguf-vocab-missing',
            `tokenizer.ggml.model is “${tokenizer.model}” but the file has no tokenizer.ggml.tokens list: llama.cpp ` +
              'refuses it (“cannot find tokenizer vocab in model file”). Convert the model again with its tokenizer.',
          ),
        ];
  }
  return [
    ...bpeFindings(tokenizer.model, byKey),
    ...shortArrayFindings(byKey, count),
    ...specialIdFindings(gguf, count),
    ...duplicateTokenFindings(head, raw, tokenizer.tokens),
    ...embeddingFindings(tensors, count),
  ];
}

function bpeFindings(model: string | null, byKey: ReadonlyMap<string, GgufValue>): Finding[] {
  if (model !== 'gpt2') {
    return [];
  }
  const findings: Finding[] = [];
  if (!byKey.has('tokenizer.ggml.merges')) {
    findings.push(
      makeFinding(
        'gguf-bpe-no-merges',
        'This BPE tokenizer (tokenizer.ggml.model “gpt2”) has no tokenizer.ggml.merges: llama.cpp refuses the file ' +
          '(“cannot find tokenizer merges in model file”). Convert it again from a checkpoint whose tokenizer.json ' +
          'holds its merges (model.merges) or that has a merges.txt.',
      ),
    );
  }
  const pre = byKey.get('tokenizer.ggml.pre');
  if (typeof pre === 'string' && pre !== '' && !LLAMA_CPP_PRE_NAMES.has(pre)) {
    findings.push(
      makeFinding(
        'gguf-bpe-unknown-pre',
        `This BPE tokenizer names the pre-tokenizer “${pre}” (tokenizer.ggml.pre), which llama.cpp did not know when ` +
          'this viewer was built: builds that do not know it refuse the file (“unknown pre-tokenizer type”). A ' +
          'newer llama.cpp may; otherwise the converter wrote a name of its own (a fork, or a hand-edited file): ' +
          'convert with the llama.cpp you run, or load with --override-kv tokenizer.ggml.pre=str:<name> for the ' +
          'name whose pattern the tokenizer was trained with.',
      ),
    );
  }
  if (typeof pre !== 'string' || pre === '') {
    findings.push(
      makeFinding(
        'gguf-bpe-no-pre',
        'This BPE tokenizer names no pre-tokenizer (tokenizer.ggml.pre): llama.cpp falls back to “default” and ' +
          'warns “GENERATION QUALITY WILL BE DEGRADED! CONSIDER REGENERATING THE MODEL”. Text is then split into ' +
          'words otherwise than the model was trained with (digits, spaces, punctuation), so prompts get other ' +
          'tokens. GGUFs converted before llama.cpp wrote this key (Llama 3’s first ones, April 2024) lack it: ' +
          'convert again with a current convert_hf_to_gguf.py, or, knowing the right name, load with ' +
          '--override-kv tokenizer.ggml.pre=str:<name> (llama-bpe for Llama 3).',
      ),
    );
  }
  return findings;
}

/**
 * llama.cpp reads scores[i] and token_type[i] for every token: builds with the bounds check refuse a shorter array,
 * earlier ones read past its end.
 */
function shortArrayFindings(byKey: ReadonlyMap<string, GgufValue>, count: number): Finding[] {
  return (['scores', 'token_type'] as const).flatMap((name) => {
    const value = byKey.get(`tokenizer.ggml.${name}`);
    if (value === undefined || !isArray(value) || value.count >= count) {
      return [];
    }
    const label = name === 'scores' ? 'scores' : 'toktypes';
    return [
      makeFinding(
        'gguf-vocab-array-short',
        `tokenizer.ggml.${name} holds ${groupDigits(value.count)} values for ${groupDigits(count)} tokens: ` +
          `llama.cpp reads one per token, so builds that check refuse the file (“Index out of array bounds for ` +
          `${label} (${value.count} < ${count})”) and older ones read past the array (garbage or a crash). The ` +
          'arrays were written from another vocabulary than the token list: convert the model again.',
      ),
    ];
  });
}

function specialIdFindings(gguf: GgufSummary, count: number): Finding[] {
  const outside = (gguf.tokenizer?.special ?? []).filter((token) => token.id >= count);
  if (outside.length === 0) {
    return [];
  }
  const named = outside.map((token) => `${token.role} ${groupDigits(token.id)}`).join(', ');
  return [
    makeFinding(
      'gguf-special-token-out-of-range',
      `Special token ids past the ${groupDigits(count)} tokens (ids 0–${groupDigits(count - 1)}): ${named}. ` +
        'llama.cpp ignores each (“bad special token … using default id”) and keeps its built-in default for the ' +
        'role, which may be another token or none: generation may not stop, or a prompt start without its BOS. ' +
        'Set the ids with gguf-py’s gguf_set_metadata.py, or load with --override-kv tokenizer.ggml.<role>_token_id=int:<id>.',
    ),
  ];
}

/**
 * llama.cpp maps each token's text to its id and asserts that the map is as long as the list: two ids with the same
 * text abort the process while the vocabulary loads (an empty token is renamed first, so those never collide).
 * Tokens are compared as bytes through the hash table that finds repeated tensor names (parse/duplicate-names.ts),
 * and only duplicates are decoded: a 128,256-token list takes a few milliseconds, where decoding every token would
 * take tens.
 */
function duplicateTokenFindings(
  head: Uint8Array,
  layout: Pick<GgufRawHeader, 'littleEndian' | 'version'>,
  list: { start: number; count: number },
): Finding[] {
  const ids: number[] = [];
  const starts = new Uint32Array(list.count);
  const ends = new Uint32Array(list.count);
  const hashes = new Int32Array(list.count);
  readStrings(head, layout, list.start, list.count, (id, _text, from, to) => {
    if (from < to) {
      starts[ids.length] = from;
      ends[ids.length] = to;
      hashes[ids.length] = hashBytes(head, from, to);
      ids.push(id);
    }
  });
  const groups = findDuplicateRanges({ bytes: head, starts, ends, hashes, count: ids.length });
  const total = groups.reduce((sum, group) => sum + group.length - 1, 0);
  if (total === 0) {
    return [];
  }
  const text = (at: number) => stringDecoder.decode(head.subarray(starts[at], ends[at]));
  const named = groups
    .flatMap(([first, ...rest]) => rest.map((other) => ({ first, other })))
    .slice(0, DUPLICATES_NAMED)
    .map(
      ({ first, other }) =>
        `${JSON.stringify(text(first))} at ${groupDigits(ids[first])} and ${groupDigits(ids[other])}`,
    )
    .join(', ');
  const more = total > DUPLICATES_NAMED ? `, and ${groupDigits(total - DUPLICATES_NAMED)} more` : '';
  return [
    makeFinding(
      'gguf-duplicate-token',
      `tokenizer.ggml.tokens holds the same text at two ids: ${named}${more}. llama.cpp aborts while loading the ` +
        'vocabulary (GGML_ASSERT(id_to_token.size() == token_to_id.size())). The tokenizer the file was converted ' +
        'from has holes or repeats in its vocabulary: make each token unique there and convert again.',
    ),
  ];
}

/** The tensors' rows are their positions in the header (validate.ts builds the columns in that order). */
function embeddingFindings(tensors: readonly GgufTensorInfo[], count: number): Finding[] {
  return VOCABULARY_TENSORS.flatMap((name) => {
    const row = tensors.findIndex((candidate) => candidate.name === name);
    const tensor = tensors[row];
    if (tensor === undefined || tensor.ne.length !== 2 || tensor.ne[1] === count) {
      return [];
    }
    const [width, rows] = tensor.ne;
    return [
      makeFinding(
        'gguf-vocab-embedding-mismatch',
        `${name} has ${groupDigits(rows)} rows, one per token, but tokenizer.ggml.tokens lists ` +
          `${groupDigits(count)}: llama.cpp refuses the file (“check_tensor_dims: tensor '${name}' has wrong ` +
          `shape; expected ${width}, ${count}, got ${width}, ${rows}”). The tokenizer and the weights come from ` +
          'different checkpoints (tokens added or a padded embedding on one side only): convert again from a ' +
          'checkpoint whose tokenizer and embedding agree, after resize_token_embeddings if tokens were added.',
        [row],
      ),
    ];
  });
}
