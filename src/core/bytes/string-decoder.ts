/**
 * The decoder for one string's UTF-8 bytes (a tensor name, a metadata value, a GGUF key or token, a pickle string, a
 * zip entry name). TextDecoder drops a leading U+FEFF as a byte-order mark by default; inside one string it is a
 * character of that string, so it is kept. Stateless (never called with `stream`), so one instance serves every
 * caller.
 */
export const stringDecoder = new TextDecoder('utf-8', { ignoreBOM: true });
