/**
 * The Tokenizer section: what the tokenizer files beside the model say (tokenizer-summary.ts). It reads sidecars
 * only, so it runs again when they are read on demand; the check against the embedding's rows is the architecture
 * analysis' (it knows which tensor the embedding is: tokenizer-agreement.ts).
 */
import type { Analysis } from '../analysis-types';
import { summarizeTokenizer } from './tokenizer-summary';
import type { TokenizerSection } from './tokenizer-types';

export const tokenizerAnalysis: Analysis<'tokenizer', TokenizerSection> = {
  id: 'tokenizer',
  readsSidecars: true,
  run: (input) => ({
    section: input.sidecars.tokenizer ? summarizeTokenizer(input.sidecars.tokenizer) : null,
    findings: [],
  }),
};
