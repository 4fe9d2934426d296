/**
 * The Tokenizer section: what the tokenizer files beside the model say (tokenizer-summary.ts), and whether
 * generation stops where the default chat template ends a turn (end-of-turn.ts, over the sample the worker rendered:
 * tokenizer-sample.ts). It reads sidecars only, so it runs again when they are read on demand; the check against the
 * embedding's rows is the architecture analysis' (it knows which tensor the embedding is: tokenizer-agreement.ts).
 */
import type { Analysis } from '../analysis-types';
import { SAMPLE_REPLY } from './chat-preview';
import { endOfTurn, endOfTurnFinding } from './end-of-turn';
import { summarizeTokenizer } from './tokenizer-summary';
import type { TokenizerSection } from './tokenizer-types';

export const tokenizerAnalysis: Analysis<'tokenizer', TokenizerSection> = {
  id: 'tokenizer',
  readsSidecars: true,
  run: (input) => {
    const files = input.sidecars.tokenizer;
    const section = files ? summarizeTokenizer(files) : null;
    if (section === null) {
      return { section: null, findings: [] };
    }
    const sample = files?.renderedSample;
    section.turnEnd = sample?.ok ? endOfTurn(sample.text, SAMPLE_REPLY, section) : null;
    const finding = endOfTurnFinding(section.turnEnd, section);
    return { section, findings: finding ? [finding] : [] };
  },
};
