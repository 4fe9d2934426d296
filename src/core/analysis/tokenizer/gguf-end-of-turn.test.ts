import { describe, expect, it } from 'vitest';
import { llama3GgufSummary } from '../../../testing/models/tokenizer-files';
import { ggufEndOfTurn, ggufEndOfTurnFinding } from './gguf-end-of-turn';

const REPLY = 'Sure.';

describe("where a GGUF's template ends a turn, against llama.cpp's end-of-generation tokens", () => {
  it('stops at a token llama.cpp knows by name, whatever the EOS key says', () => {
    // A base-model conversion: EOS is <|end_of_text|>, and no eot key; <|eot_id|> is in llama.cpp's list.
    const gguf = llama3GgufSummary(null, 251);
    const tokenizer = gguf.tokenizer ?? { special: [] };
    const withoutEot = {
      ...gguf,
      tokenizer: { ...tokenizer, special: tokenizer.special.filter((token) => token.role !== 'eot') },
    } as typeof gguf;
    const end = ggufEndOfTurn(`<|start_header_id|>assistant<|end_header_id|>${REPLY}<|eot_id|>`, REPLY, withoutEot);
    expect(end).toMatchObject({ text: '<|eot_id|>', id: 254, stops: true });
    expect(ggufEndOfTurnFinding(end)).toBeNull();
  });

  it('warns, with the override that fixes it, when the turn ends with a token llama.cpp does not stop at', () => {
    const gguf = llama3GgufSummary(null, 251);
    // The turn ends with <|end_header_id|>: neither an end-of-generation key nor a name llama.cpp knows.
    const end = ggufEndOfTurn(`${REPLY}<|end_header_id|>`, REPLY, gguf);
    expect(end).toMatchObject({ text: '<|end_header_id|>', id: 253, stops: false });
    expect(ggufEndOfTurnFinding(end)?.message).toBe(
      "The chat template ends the assistant's turn with <|end_header_id|> (id 253), but llama.cpp stops only at " +
        "llama.cpp's end-of-generation tokens: 251 (<|end_of_text|>), 254 (<|eot_id|>): llama-server and llama-cli " +
        'run past the end of each reply and write the next turn themselves. Mark it as the end of a turn: ' +
        '--override-kv tokenizer.ggml.eot_token_id=int:253 when loading, or write that key with gguf-py ' +
        '(gguf_set_metadata.py).',
    );
  });

  it('says nothing without a tokenizer, or when no known token follows the reply', () => {
    const gguf = llama3GgufSummary(null);
    expect(ggufEndOfTurn(`${REPLY}\n\nUser:`, REPLY, gguf)).toBeNull();
    expect(ggufEndOfTurn(REPLY, REPLY, { ...gguf, tokenizer: null, chatTemplate: null })).toBeNull();
  });
});
