/**
 * Tokenizer files for the tiny models (tinyLlamaTensors: 256 embedding rows), laid out as transformers writes them:
 * tokenizer_config.json with AddedToken objects and `added_tokens_decoder`, chat_template.jinja, chat_template.json
 * and generation_config.json. Two layouts of released models, shrunk: Llama 3 Instruct's header tokens and
 * `<|eot_id|>` (whose first generation_config.json stopped at `<|end_of_text|>` only), and ChatML's
 * `<|im_start|>`/`<|im_end|>`.
 */
import { withTokenizerFile, type TokenizerFiles } from '../../core/analysis/tokenizer/tokenizer-files';
import { summarizeTokenizer } from '../../core/analysis/tokenizer/tokenizer-summary';
import type { TokenizerSection } from '../../core/analysis/tokenizer/tokenizer-types';
import type { GgufSummary } from '../../core/formats/sections';

/** An AddedToken as tokenizer_config.json writes it. */
function addedToken(content: string, special = true) {
  return { content, lstrip: false, normalized: false, rstrip: false, single_word: false, special };
}

/** Llama 3 Instruct's template, shortened (no tools, no date lines). */
export const LLAMA3_TEMPLATE =
  "{{- bos_token }}{%- for message in messages %}{{- '<|start_header_id|>' + message['role'] + " +
  "'<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}{%- endfor %}" +
  "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}";

/** Llama 3's added tokens, at the top of the 256 rows: ids 250 to 254. */
export const LLAMA3_IDS = { begin: 250, end: 251, startHeader: 252, endHeader: 253, eot: 254 } as const;

export function llama3TokenizerConfig(): Record<string, unknown> {
  return {
    added_tokens_decoder: {
      [LLAMA3_IDS.begin]: addedToken('<|begin_of_text|>'),
      [LLAMA3_IDS.end]: addedToken('<|end_of_text|>'),
      [LLAMA3_IDS.startHeader]: addedToken('<|start_header_id|>'),
      [LLAMA3_IDS.endHeader]: addedToken('<|end_header_id|>'),
      [LLAMA3_IDS.eot]: addedToken('<|eot_id|>'),
    },
    bos_token: '<|begin_of_text|>',
    chat_template: LLAMA3_TEMPLATE,
    clean_up_tokenization_spaces: true,
    eos_token: '<|eot_id|>',
    model_input_names: ['input_ids', 'attention_mask'],
    model_max_length: 131072,
    tokenizer_class: 'PreTrainedTokenizerFast',
  };
}

/** generation_config.json as first released (stops at <|end_of_text|> only), or fixed to stop at <|eot_id|> too. */
export function llama3GenerationConfig(fixed: boolean): Record<string, unknown> {
  return {
    bos_token_id: LLAMA3_IDS.begin,
    do_sample: true,
    eos_token_id: fixed ? [LLAMA3_IDS.end, LLAMA3_IDS.eot] : LLAMA3_IDS.end,
    max_length: 4096,
    temperature: 0.6,
    top_p: 0.9,
    transformers_version: '4.40.0.dev0',
  };
}

export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + " +
  "'\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/**
 * A ChatML finetune of the tiny model whose two new tokens were never given embedding rows: ids 256 and 257 of a
 * 256-row embedding (`beyond: false` puts them at 254 and 255).
 */
export function chatmlTokenizerConfig(beyond = true): Record<string, unknown> {
  const start = beyond ? 256 : 254;
  return {
    add_bos_token: true,
    add_eos_token: false,
    added_tokens_decoder: {
      0: addedToken('<unk>'),
      1: addedToken('<s>'),
      2: addedToken('</s>'),
      [start]: addedToken('<|im_start|>'),
      [start + 1]: addedToken('<|im_end|>'),
    },
    bos_token: { __type: 'AddedToken', ...addedToken('<s>') },
    chat_template: CHATML_TEMPLATE,
    eos_token: '<|im_end|>',
    // int(1e30): transformers' "no limit" (VERY_LARGE_INTEGER).
    model_max_length: 1e30,
    pad_token: '</s>',
    tokenizer_class: 'LlamaTokenizer',
    unk_token: '<unk>',
  };
}

/**
 * A save from before transformers 4.34 (a Vicuna-style finetune): tokenizer_config.json without
 * added_tokens_decoder, the special tokens in special_tokens_map.json, and a pad token added by added_tokens.json at
 * the id after the base vocabulary (256 for the tiny model, whose embedding was not resized).
 */
export function legacyTokenizerFiles(): Record<string, Record<string, unknown>> {
  return {
    'tokenizer_config.json': {
      add_bos_token: true,
      bos_token: { __type: 'AddedToken', content: '<s>', lstrip: false, normalized: true, rstrip: false },
      eos_token: '</s>',
      model_max_length: 2048,
      tokenizer_class: 'LlamaTokenizer',
      unk_token: '<unk>',
    },
    'special_tokens_map.json': { bos_token: '<s>', eos_token: '</s>', pad_token: '[PAD]', unk_token: '<unk>' },
    'added_tokens.json': { '[PAD]': 256 },
  };
}

export function jsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value, null, 2));
}

/** The files as the IO layer hands them over: path → parsed JSON (or a template's text). */
export function tokenizerFilesOf(entries: Record<string, unknown>): TokenizerFiles {
  let files: TokenizerFiles = {};
  for (const [path, content] of Object.entries(entries)) {
    files = withTokenizerFile(files, path, content);
  }
  return files;
}

/** The Tokenizer section of `entries`; throws when they make none. */
export function tokenizerSectionOf(entries: Record<string, unknown>): TokenizerSection {
  const section = summarizeTokenizer(tokenizerFilesOf(entries));
  if (section === null) {
    throw new Error('no tokenizer section');
  }
  return section;
}

/**
 * The header summary llama.cpp's converter writes for the tiny Llama 3, as far as the tokenizer code reads it: its
 * special tokens (EOS `eos`: 254 <|eot_id|> as converted for the instruct model, 251 <|end_of_text|> for the base),
 * its control tokens, add_bos_token, and `template`.
 */
export function llama3GgufSummary(template: string | null, eos = 254): GgufSummary {
  return {
    tokenizer: {
      model: 'gpt2',
      pre: 'llama-bpe',
      vocabSize: 256,
      merges: 10,
      special: [
        { role: 'bos', id: 250, text: '<|begin_of_text|>' },
        { role: 'eos', id: eos, text: eos === 254 ? '<|eot_id|>' : '<|end_of_text|>' },
        { role: 'eot', id: 254, text: '<|eot_id|>' },
      ],
      added: [
        { id: 250, text: '<|begin_of_text|>', kind: 'control' },
        { id: 251, text: '<|end_of_text|>', kind: 'control' },
        { id: 252, text: '<|start_header_id|>', kind: 'control' },
        { id: 253, text: '<|end_header_id|>', kind: 'control' },
        { id: 254, text: '<|eot_id|>', kind: 'control' },
      ],
      addedCount: 5,
      tokens: { start: 0, count: 256 },
    },
    chatTemplate: template,
    kvs: [{ key: 'tokenizer.ggml.add_bos_token', type: 'BOOL', value: 'true' }],
  } as unknown as GgufSummary;
}
