/**
 * The tokenizer of one tokenizer.json or GGUF, kept between encodes (worker/text-encoder.ts): a thread of its own,
 * so a pre-tokenizer pattern from the file that backtracks for ever is stopped by terminating it, and building a
 * large one (a GGUF's SentencePiece merges, tokenizers.js's tables) keeps the parser worker free.
 */
import { encodeWithTokenizer, tokenizerFrom } from '../core/analysis/tokenizer/encode';
import type { TextEncoderAnswer, TextEncoderRequest } from './text-encoder';

let tokenizer: ReturnType<typeof tokenizerFrom> | null = null;

function reply(answer: TextEncoderAnswer): void {
  self.postMessage(answer);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

self.onmessage = (event: MessageEvent<TextEncoderRequest>) => {
  const request = event.data;
  if (request.kind === 'load') {
    try {
      tokenizer = tokenizerFrom(request.source, request.config);
      reply({ kind: 'loaded', error: null });
    } catch (error) {
      reply({ kind: 'loaded', error: messageOf(error) });
    }
    return;
  }
  try {
    if (tokenizer === null) {
      throw new Error('no tokenizer was built');
    }
    reply({ kind: 'encoded', id: request.id, result: encodeWithTokenizer(tokenizer, request.text), error: null });
  } catch (error) {
    reply({ kind: 'encoded', id: request.id, result: null, error: messageOf(error) });
  }
};
