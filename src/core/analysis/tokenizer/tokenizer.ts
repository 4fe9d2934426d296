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
import type { TokenizerSection, VocabularyFacts } from './tokenizer-types';
import { idOf, tokenAt, type VocabularySummary } from './vocabulary';
import { plural } from '../../number-format';
import { makeFinding } from '../../findings/make-finding';

export const tokenizerAnalysis: Analysis<'tokenizer', TokenizerSection> = {
  id: 'tokenizer',
  readsSidecars: true,
  run: (input) => {
    const files = input.sidecars.tokenizer;
    // A GGUF's own tokenizer is in its header (the GGUF tab); files beside it describe another copy.
    const gguf = input.header.gguf !== undefined;
    const asked = input.sidecars.vocabulary !== undefined || input.sidecars.vocabularyProblem !== undefined;
    // A tokenizer.json with none of the other files still makes a section, for its vocabulary.
    const summary = (files && !gguf ? summarizeTokenizer(files) : null) ?? (asked && !gguf ? NO_TOKENIZER_FILES : null);
    if (summary === null) {
      return { section: null, findings: [] };
    }
    const sample = files?.renderedSample;
    const configStops = stopsOfConfig(input.sidecars.config, input.sidecars.configFile);
    const vocabulary = input.sidecars.vocabulary;
    // The summary is shared (summarizeTokenizer), so the turn's end and the vocabulary go on a copy.
    const section: TokenizerSection = {
      ...summary,
      ...(vocabulary && filledFromVocabulary(summary, vocabulary)),
      turnEnd: sample?.ok ? endOfTurn(sample.text, SAMPLE_REPLY, summary, configStops) : null,
      ...(vocabulary && { vocabulary: vocabularyFacts(vocabulary) }),
      ...(input.sidecars.vocabularyProblem !== undefined && { vocabularyProblem: input.sidecars.vocabularyProblem }),
    };
    const findings = [
      endOfTurnFinding(section.turnEnd, section),
      vocabulary && sample?.ok ? doubleBosFinding(vocabulary, sample.text, files?.tokenizerConfig?.file) : null,
      vocabulary ? filesDisagreeFinding(summary, vocabulary) : null,
      vocabulary ? movedTokensFinding(vocabulary) : null,
    ];
    return { section, findings: findings.filter((finding) => finding !== null) };
  },
};

/**
 * What tokenizer.json adds to the other files' view, as the fast tokenizer loads the pair: its added tokens when
 * tokenizer_config.json lists none (older saves and many repositories keep them only there), and the id of each
 * special token the config names by text alone.
 */
function filledFromVocabulary(
  summary: TokenizerSection,
  vocabulary: VocabularySummary,
): Pick<TokenizerSection, 'special'> & Partial<TokenizerSection> {
  const special = summary.special.map((token) =>
    token.id === null ? { ...token, id: idOf(vocabulary, token.text) } : token,
  );
  if (summary.addedTokenCount > 0 || vocabulary.added.length === 0) {
    return { special };
  }
  return {
    special,
    addedTokens: vocabulary.added,
    addedTokenCount: vocabulary.addedTokens,
    highestAddedId: Math.max(...vocabulary.added.map((token) => token.id)),
    addedTokensFile: vocabulary.file,
  };
}

/** The section's fields when only tokenizer.json was read: nothing that the other files say. */
const NO_TOKENIZER_FILES: TokenizerSection = {
  files: [],
  tokenizerClass: null,
  modelMaxLength: null,
  addBosToken: null,
  addEosToken: null,
  special: [],
  addedTokens: [],
  addedTokenCount: 0,
  highestAddedId: null,
  addedTokensFile: null,
  specialTokensFile: null,
  templates: [],
  shadowedTemplate: null,
  generation: null,
  turnEnd: null,
};

function vocabularyFacts({
  ids,
  texts,
  decoded,
  source,
  mergeEntries,
  added,
  moved,
  ...facts
}: VocabularySummary): VocabularyFacts {
  void [ids, texts, decoded, source, mergeEntries, added, moved];
  return facts;
}

/**
 * The default template's rendered prompt already starts with the token tokenizer.json's post-processor puts before
 * every sequence: `tokenizer(prompt)` (add_special_tokens=True, its default) then starts with two. transformers'
 * apply_chat_template(tokenize=True) passes add_special_tokens=False, as servers that render chats do; code that
 * renders to text and tokenizes it again does not.
 */
function doubleBosFinding(vocabulary: VocabularySummary, rendered: string, configFile = 'tokenizer_config.json') {
  const bos = vocabulary.prepends.find((token) => rendered.startsWith(token));
  if (bos === undefined) {
    return null;
  }
  return makeFinding(
    'template-double-bos',
    `The chat template of ${configFile} starts its prompt with ${bos}, and ${vocabulary.file}'s post-processor ` +
      `(${vocabulary.template}) puts ${bos} before every sequence it encodes: tokenizer(prompt) on the rendered text ` +
      `gives ${bos} twice. Tokenize a rendered chat with add_special_tokens=False, or let ` +
      'apply_chat_template(tokenize=True) do it, which does so.',
    [],
  );
}

/** Disagreements named in the message; the rest are counted. */
const MAX_DISAGREEMENTS_NAMED = 3;

/**
 * The added tokens tokenizer_config.json (or added_tokens.json) lists at ids where tokenizer.json holds another token,
 * or none: a fast tokenizer (transformers' default) takes tokenizer.json's, a slow one the config's, so the same text
 * gets other ids depending on which is loaded.
 */
function filesDisagreeFinding(summary: TokenizerSection, vocabulary: VocabularySummary) {
  const disagree = summary.addedTokens.flatMap((token) => {
    const other = tokenAt(vocabulary, token.id);
    return other === token.text ? [] : [{ ...token, other }];
  });
  if (disagree.length === 0) {
    return null;
  }
  const file = summary.addedTokensFile ?? 'tokenizer_config.json';
  const named = disagree
    .slice(0, MAX_DISAGREEMENTS_NAMED)
    .map(
      ({ id, text, other }) =>
        `id ${id} is ${text} in ${file} but ${other === undefined ? 'no token' : other} in ${vocabulary.file}`,
    );
  const rest = disagree.length - named.length;
  return makeFinding(
    'tokenizer-files-disagree',
    `${file} and ${vocabulary.file} disagree on ${plural(disagree.length, 'added token')}: ${named.join('; ')}` +
      `${rest > 0 ? `; and ${rest} more` : ''}. transformers' fast tokenizer (the default) encodes with ` +
      `${vocabulary.file}; a slow tokenizer, and anything else that reads ${file}, takes its ids, so the same text ` +
      'gets other ids. Save both from the tokenizer the model was trained with (tokenizer.save_pretrained).',
    [],
  );
}

/** tokenizer.json's added tokens that the tokenizers library gives other ids than the file declares. */
function movedTokensFinding(vocabulary: VocabularySummary) {
  const moved = vocabulary.moved;
  if (moved.length === 0) {
    return null;
  }
  const named = moved
    .slice(0, MAX_DISAGREEMENTS_NAMED)
    .map(({ text, declared, id }) => `${text} declared ${declared}, given ${id}`);
  const rest = moved.length - named.length;
  const [first] = moved;
  return makeFinding(
    'tokenizer-added-token-moved',
    `${vocabulary.file} declares ${plural(moved.length, 'added token')} at ids the tokenizers library does not ` +
      `give ${moved.length > 1 ? 'them' : 'it'}: ${named.join('; ')}${rest > 0 ? `; and ${rest} more` : ''}. The ` +
      "library (transformers' fast tokenizer) gives an added token the id its vocabulary already has for the text, " +
      'else the next id after the vocabulary and the added tokens before it, whatever the file says, and logs ' +
      `"Token '${first.text}' was expected to have ID '${first.declared}' but was given ID '${first.id}'". So ` +
      'tokenizer(text) produces the given ids, and the embedding rows at the declared ones are never used; ' +
      "llama.cpp's converter writes what the library gives. Give the added tokens the ids that follow the " +
      'vocabulary without gaps (and the vocabulary no holes), or check which ids the model was trained with.',
    [],
  );
}

/** config.json's eos_token_id (one id or a list), as generate() falls back on it; a params.json gives none. */
function stopsOfConfig(config: unknown, file: ConfigFile | undefined): ConfigStops | null {
  if (!isRecord(config) || (file ?? 'config.json') !== 'config.json') {
    return null;
  }
  const ids = eosTokenIds(config.eos_token_id);
  return ids.length > 0 ? { file: 'config.json', ids } : null;
}
