/**
 * Whether llama.cpp stops where a GGUF's chat template ends a turn. llama.cpp stops at its end-of-generation set:
 * the `tokenizer.ggml.eos_token_id`, `eot_token_id` and `eom_token_id` tokens, plus every token whose text is one it
 * knows ends a turn (src/llama-vocab.cpp, `special_eog_ids`). A template that ends turns with any other token makes
 * llama-server and llama-cli write the next turn themselves. The fix needs no re-conversion:
 * `--override-kv tokenizer.ggml.eot_token_id=int:N`, or gguf-py's gguf_set_metadata.py.
 */
import { makeFinding } from '../../findings/make-finding';
import type { GgufSummary } from '../../formats/sections';
import type { Finding } from '../../model';
import { endOfTurn, type EndOfTurn } from './end-of-turn';
import { tokenizerSectionOfGguf } from './gguf-tokenizer';

/**
 * Token texts llama.cpp adds to its end-of-generation set by name, whatever their ids: its current list, so a
 * warning means no build stops there (older builds know fewer of these).
 */
const LLAMA_CPP_EOG_TEXTS: ReadonlySet<string> = new Set([
  '<|eot_id|>',
  '<|im_end|>',
  '<|end|>',
  '<|return|>',
  '<|call|>',
  '<|flush|>',
  '<|calls|>',
  '<end_of_turn>',
  '<|endoftext|>',
  '</s>',
  '<|eom_id|>',
  '<EOT>',
  '_<EOT>',
  '[EOT]',
  '[EOS]',
  '<|end_of_text|>',
  '<end_of_utterance>',
  '<eos>',
  '<turn|>',
  '<|tool_response>',
]);

/** The `tokenizer.ggml.*_token_id` roles llama.cpp stops at. */
const EOG_ROLES: ReadonlySet<string> = new Set(['eos', 'eot', 'eom']);

const STOPS_LABEL = "llama.cpp's end-of-generation tokens";

/** The token after the sample reply in the rendered template, and whether llama.cpp stops there. */
export function ggufEndOfTurn(rendered: string, reply: string, gguf: GgufSummary): EndOfTurn | null {
  const section = tokenizerSectionOfGguf(gguf);
  if (section === null) {
    return null;
  }
  const ids = (gguf.tokenizer?.special ?? []).filter((token) => EOG_ROLES.has(token.role)).map((token) => token.id);
  const named = section.addedTokens.filter((token) => LLAMA_CPP_EOG_TEXTS.has(token.text)).map((token) => token.id);
  const stops = [...new Set([...ids, ...named])].sort((a, b) => a - b);
  const end = endOfTurn(rendered, reply, section, { file: STOPS_LABEL, ids: stops });
  if (end === null) {
    return null;
  }
  // A text llama.cpp knows ends a turn stops it, listed among the added tokens or not.
  return LLAMA_CPP_EOG_TEXTS.has(end.text) ? { ...end, stops: true } : end;
}

/** The `end-of-turn-not-stop` finding for a GGUF, with llama.cpp's fix; null when llama.cpp stops there. */
export function ggufEndOfTurnFinding(end: EndOfTurn | null): Finding | null {
  if (end === null || end.stops !== false) {
    return null;
  }
  const token = end.id === null ? end.text : `${end.text} (id ${end.id})`;
  const fix =
    end.id === null
      ? ''
      : ` Mark it as the end of a turn: --override-kv tokenizer.ggml.eot_token_id=int:${end.id} when loading, or ` +
        'write that key with gguf-py (gguf_set_metadata.py).';
  return makeFinding(
    'end-of-turn-not-stop',
    `The chat template ends the assistant's turn with ${token}, but llama.cpp stops only at ${end.stopsAt}: ` +
      `llama-server and llama-cli run past the end of each reply and write the next turn themselves.${fix}`,
  );
}
