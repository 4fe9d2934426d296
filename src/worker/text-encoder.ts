/**
 * "Encode a text" with a tokenizer.json read on demand, from the parser worker: the tokenizer is built once in a
 * worker of its own (text-encoder.worker.ts) and kept for the next text. Each step has a deadline
 * (TOKENIZER_LOAD_TIMEOUT_MS, ENCODE_TIMEOUT_MS): past it the worker is terminated, the answer says why, and the
 * next text starts a new one. Texts are encoded one after the other.
 */
import {
  encodeWithTokenizer,
  tokenizerFrom,
  type EncodeAnswer,
  type EncodedText,
  type TokenizerSource,
} from '../core/analysis/tokenizer/encode';
import { ENCODE_TIMEOUT_MS, TOKENIZER_LOAD_TIMEOUT_MS } from '../core/limits';

export type TextEncoderRequest =
  { kind: 'load'; source: TokenizerSource; config: unknown } | { kind: 'encode'; id: number; text: string };

export type TextEncoderAnswer =
  | { kind: 'loaded'; error: string | null }
  | { kind: 'encoded'; id: number; result: EncodedText | null; error: string | null };

export interface TextEncoder {
  encode: (text: string) => Promise<EncodeAnswer>;
  /** Stops the tokenizer's worker (the load it belongs to is released). */
  dispose: () => void;
}

/** `label` names the tokenizer in what goes wrong (tokenizer.json, or a GGUF's own tokenizer). */
export function textEncoder(source: TokenizerSource, config: unknown, label = 'tokenizer.json'): TextEncoder {
  // Node (the unit tests) has no Worker; browsers, where files from strangers are opened, always do.
  if (typeof Worker === 'undefined') {
    return { encode: inlineEncoder(source, config, label), dispose: () => undefined };
  }
  let worker: Worker | null = null;
  let loaded: Promise<string | null> | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let nextId = 0;
  const stop = () => {
    worker?.terminate();
    worker = null;
    loaded = null;
  };
  /** The next message from the worker, or null past `ms` (the worker is then stopped). */
  const answer = (running: Worker, ms: number, send: TextEncoderRequest) =>
    new Promise<TextEncoderAnswer | null>((resolve) => {
      const timer = setTimeout(() => {
        stop();
        resolve(null);
      }, ms);
      running.onmessage = (event: MessageEvent<TextEncoderAnswer>) => {
        clearTimeout(timer);
        resolve(event.data);
      };
      running.onerror = (event) => {
        event.preventDefault();
        clearTimeout(timer);
        stop();
        resolve({ kind: 'loaded', error: event.message || 'the tokenizer worker failed' });
      };
      running.postMessage(send);
    });
  const start = (): { running: Worker; ready: Promise<string | null> } => {
    if (worker !== null && loaded !== null) {
      return { running: worker, ready: loaded };
    }
    const running = new Worker(new URL('./text-encoder.worker.ts', import.meta.url), {
      type: 'module',
      name: 'text-encoder',
    });
    worker = running;
    loaded = answer(running, TOKENIZER_LOAD_TIMEOUT_MS, { kind: 'load', source, config }).then((reply) =>
      reply === null
        ? `building the tokenizer took over ${TOKENIZER_LOAD_TIMEOUT_MS / 1000} s and was stopped`
        : reply.kind === 'loaded'
          ? reply.error
          : null,
    );
    return { running, ready: loaded };
  };
  const encodeOne = async (text: string): Promise<EncodeAnswer> => {
    let started;
    try {
      started = start();
    } catch (error) {
      return { result: null, error: `The tokenizer worker could not be started: ${String(error)}.` };
    }
    const problem = await started.ready;
    if (problem !== null) {
      stop();
      return { result: null, error: `${label} could not be made a tokenizer: ${problem}.` };
    }
    const id = nextId++;
    const reply = await answer(started.running, ENCODE_TIMEOUT_MS, { kind: 'encode', id, text });
    if (reply === null) {
      return {
        result: null,
        error:
          `Encoding did not finish within ${ENCODE_TIMEOUT_MS / 1000} s and was stopped: a pattern of the ` +
          "tokenizer's pre-tokenizer backtracks on this text (a regular expression from the file).",
      };
    }
    if (reply.kind !== 'encoded' || reply.result === null) {
      return {
        result: null,
        error: `The text could not be encoded: ${reply.error ?? 'no answer'}.`,
      };
    }
    return { result: reply.result, error: null };
  };
  return {
    encode: (text) => {
      const next = queue.then(() => encodeOne(text));
      queue = next.catch(() => undefined);
      return next;
    },
    dispose: stop,
  };
}

/** The same answers on the calling thread, for runtimes without workers. */
function inlineEncoder(
  source: TokenizerSource,
  config: unknown,
  label: string,
): (text: string) => Promise<EncodeAnswer> {
  let built: ReturnType<typeof tokenizerFrom> | string | null = null;
  return async (text) => {
    try {
      built ??= tokenizerFrom(source, config);
    } catch (error) {
      built = error instanceof Error ? error.message : String(error);
    }
    if (typeof built === 'string') {
      return { result: null, error: `${label} could not be made a tokenizer: ${built}.` };
    }
    try {
      return { result: encodeWithTokenizer(built, text), error: null };
    } catch (error) {
      return { result: null, error: `The text could not be encoded: ${String(error)}.` };
    }
  };
}
