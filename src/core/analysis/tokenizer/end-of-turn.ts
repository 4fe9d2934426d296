/**
 * Whether generation stops where the chat template ends the assistant's turn. A template closes each reply with a
 * token (`<|im_end|>`, `<|eot_id|>`, `<end_of_turn>`, `</s>`); generate() stops only at the ids of
 * generation_config.json's `eos_token_id`, and without that file at config.json's (GenerationConfig.from_model_config);
 * with neither, this check falls back on the tokenizer's eos_token, which pipelines and servers stop at. Servers that
 * take their stop tokens from the same files do the same. When the turn's last token is not among them, the model writes
 * its reply, the end-of-turn token, and then the next user turn itself. The turn's end is read from the template
 * rendered on a sample conversation: the token that follows the sample reply.
 */
import { makeFinding } from '../../findings/make-finding';
import type { Finding } from '../../model';
import type { TokenizerSection } from './tokenizer-types';

export interface EndOfTurn {
  text: string;
  /** null when the tokenizer config does not list the token's id. */
  id: number | null;
  /** Whether generation stops at it; null when that cannot be told (an id the files do not give). */
  stops: boolean | null;
  /** What generation stops at, as the files say it: `generation_config.json: 128001, 128009`. */
  stopsAt: string;
}

/** Stop ids a file other than the tokenizer's gives: config.json's eos_token_id. */
export interface ConfigStops {
  file: string;
  ids: number[];
}

/**
 * The token that ends the sample reply in `rendered`, and whether generation stops there; null when none is known.
 * `config`: config.json's eos_token_id, what generate() stops at when there is no generation_config.json.
 */
export function endOfTurn(
  rendered: string,
  reply: string,
  section: TokenizerSection,
  config: ConfigStops | null = null,
): EndOfTurn | null {
  const at = rendered.lastIndexOf(reply);
  if (at < 0) {
    return null;
  }
  const after = rendered.slice(at + reply.length).trimStart();
  const token = longestTokenAt(after, section);
  if (token === null) {
    return null;
  }
  const generation = section.generation;
  const stops =
    generation !== null && generation.eosIds.length > 0
      ? { file: generation.file, ids: generation.eosIds }
      : config !== null && config.ids.length > 0
        ? config
        : null;
  if (stops !== null) {
    return {
      ...token,
      stops: token.id === null ? null : stops.ids.includes(token.id),
      stopsAt: `${stops.file}: ${stops.ids.map((id) => describeId(id, section)).join(', ')}`,
    };
  }
  const eos = section.special.find((special) => special.role === 'eos');
  if (eos === undefined) {
    return { ...token, stops: null, stopsAt: 'no eos_token' };
  }
  return {
    ...token,
    stops: eos.text === token.text,
    stopsAt: `${section.specialTokensFile ?? 'tokenizer_config.json'}: eos_token ${eos.text}`,
  };
}

/** The `end-of-turn-not-stop` finding for `end`, or null when generation stops there or it cannot be told. */
export function endOfTurnFinding(end: EndOfTurn | null, section: TokenizerSection): Finding | null {
  if (end === null || end.stops !== false) {
    return null;
  }
  const token = end.id === null ? end.text : `${end.text} (id ${end.id})`;
  const generation = section.generation;
  const fix =
    generation !== null
      ? `Add ${end.id ?? end.text} to eos_token_id in ${generation.file}.`
      : `Add a generation_config.json whose eos_token_id includes ${end.id ?? `the id of ${end.text}`} (it takes ` +
        "precedence over config.json's).";
  return makeFinding(
    'end-of-turn-not-stop',
    `The chat template ends the assistant's turn with ${token}, but generation stops only at ${end.stopsAt}: ` +
      'generate(), and servers that take their stop tokens from these files, run past the end of each reply and ' +
      `write the next turn themselves. ${fix}`,
  );
}

function longestTokenAt(text: string, section: TokenizerSection): { text: string; id: number | null } | null {
  let best: { text: string; id: number | null } | null = null;
  for (const token of section.addedTokens) {
    if (token.text !== '' && text.startsWith(token.text) && token.text.length > (best?.text.length ?? 0)) {
      best = { text: token.text, id: token.id };
    }
  }
  for (const special of section.special) {
    if (special.text !== '' && text.startsWith(special.text) && special.text.length > (best?.text.length ?? 0)) {
      best = { text: special.text, id: special.id };
    }
  }
  return best;
}

function describeId(id: number, section: TokenizerSection): string {
  const token = section.addedTokens.find((added) => added.id === id);
  return token ? `${id} (${token.text})` : String(id);
}
