/** A GGUF's own token list as the worker reads it: the header parsed, then the format registry's tokenList. */
import { readFileSync } from 'node:fs';
import { loadHeader } from '../core/load-header';
import { tokenListOf } from '../core/formats/format-readers';
import type { TokenList } from '../core/analysis/tokenizer/tokenizer-types';
import { memoryReader } from './fuzz/memory-reader';

export async function ggufTokenListOf(path: string): Promise<TokenList> {
  const loaded = await loadHeader(memoryReader(new Uint8Array(readFileSync(path)), 'local'));
  if (loaded.outcome.kind !== 'parsed') {
    throw new Error(`${path} did not parse`);
  }
  const tokens = tokenListOf(loaded.outcome.header, loaded.head);
  if (!tokens) {
    throw new Error(`${path} has no token list`);
  }
  return tokens;
}
