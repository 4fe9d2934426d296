/**
 * The Tokenizer section: what the tokenizer files beside the model say (tokenizer-summary.ts), and whether
 * generation stops where the default chat template ends a turn (end-of-turn.ts, over the sample the worker rendered:
 * tokenizer-sample.ts). It reads sidecars only, so it runs again when they are read on demand; the check against the
 * embedding's rows is the architecture analysis' (it knows which tensor the embedding is: tokenizer-agreement.ts).
 */
import { SAMPLE_REPLY } from './chat-preview';
import { endOfTurn, endOfTurnFinding, type ConfigStops } from './end-of-turn';
import { isRecord } from '../values';
import type { Analysis, ConfigFile } from '../analysis-types';
import { eosTokenIds, summarizeTokenizer } from './tokenizer-summary';
import type { TokenizerSection } from './tokenizer-types';

export const tokenizerAnalysis: Analysis<'tokenizer', TokenizerSection> = {
  id: 'tokenizer',
  readsSidecars: true,
  run: (input) => {
    const files = input.sidecars.tokenizer;
    // A GGUF's own tokenizer is in its header (the GGUF tab); files beside it describe another copy.
    const summary = files && !input.header.gguf ? summarizeTokenizer(files) : null;
    if (summary === null) {
      return { section: null, findings: [] };
    }
    const sample = files?.renderedSample;
    const configStops = stopsOfConfig(input.sidecars.config, input.sidecars.configFile);
    // The summary is shared (summarizeTokenizer), so the turn's end goes on a copy.
    const section = {
      ...summary,
      turnEnd: sample?.ok ? endOfTurn(sample.text, SAMPLE_REPLY, summary, configStops) : null,
    };
    const finding = endOfTurnFinding(section.turnEnd, section);
    return { section, findings: finding ? [finding] : [] };
  },
};

/** config.json's eos_token_id (one id or a list), as generate() falls back on it; a params.json gives none. */
function stopsOfConfig(config: unknown, file: ConfigFile | undefined): ConfigStops | null {
  if (!isRecord(config) || (file ?? 'config.json') !== 'config.json') {
    return null;
  }
  const ids = eosTokenIds(config.eos_token_id);
  return ids.length > 0 ? { file: 'config.json', ids } : null;
}
