/**
 * A GGUF's tokenizer (its `tokenizer.ggml.*` keys and `tokenizer.chat_template`) in the Tokenizer section's terms,
 * so the tokenizer comparison can set a GGUF against the transformers files it was converted from: a stale chat
 * template or special tokens that moved are what a conversion gets wrong. What GGUF does not record the way
 * transformers does (the tokenizer class, a maximum length, generate()'s stop list; llama.cpp stops at every
 * end-of-generation token it knows) is left out and marked by `source: 'gguf'`.
 */
import type { GgufSummary } from '../../formats/sections';
import type { SpecialTokenRole, TokenizerSection } from './tokenizer-types';

/** Where the section came from, as its files list names it. */
export const GGUF_TOKENIZER_SOURCE = 'GGUF header';

const ROLES: ReadonlyMap<string, SpecialTokenRole> = new Map([
  ['bos', 'bos'],
  ['eos', 'eos'],
  ['pad', 'pad'],
  ['unknown', 'unk'],
]);

export function tokenizerSectionOfGguf(gguf: GgufSummary): TokenizerSection | null {
  const tokenizer = gguf.tokenizer;
  if (tokenizer === null && gguf.chatTemplate === null) {
    return null;
  }
  const flag = (key: string): boolean | null => {
    const value = gguf.kvs.find((kv) => kv.key === key)?.value;
    return value === 'true' ? true : value === 'false' ? false : null;
  };
  const added = (tokenizer?.added ?? []).map((token) => ({
    id: token.id,
    text: token.text ?? '',
    special: token.kind === 'control',
  }));
  return {
    source: 'gguf',
    ...(tokenizer?.model === 'gpt2' && { ggufPre: tokenizer.pre }),
    files: [GGUF_TOKENIZER_SOURCE],
    tokenizerClass: null,
    modelMaxLength: null,
    addBosToken: flag('tokenizer.ggml.add_bos_token'),
    addEosToken: flag('tokenizer.ggml.add_eos_token'),
    special: (tokenizer?.special ?? []).flatMap((token) => {
      const role = ROLES.get(token.role);
      return role !== undefined && token.text !== null ? [{ role, text: token.text, id: token.id }] : [];
    }),
    addedTokens: added,
    addedTokenCount: tokenizer?.addedCount ?? 0,
    highestAddedId: added.length > 0 ? Math.max(...added.map((token) => token.id)) : null,
    addedTokensFile: added.length > 0 ? GGUF_TOKENIZER_SOURCE : null,
    specialTokensFile: GGUF_TOKENIZER_SOURCE,
    templates:
      gguf.chatTemplate === null
        ? []
        : [{ name: 'default', source: gguf.chatTemplate, file: `${GGUF_TOKENIZER_SOURCE} (tokenizer.chat_template)` }],
    shadowedTemplate: null,
    generation: null,
    turnEnd: null,
  };
}
