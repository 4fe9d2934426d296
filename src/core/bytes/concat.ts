/** Joining streamed chunks, for every reader that collects a body or an inflated stream piece by piece. */

/**
 * Joins chunks into one buffer. A lone chunk that is a whole buffer of exactly `total` bytes is returned as it is;
 * anything else is copied, since stream chunks may be views into a shared pool the caller must not keep.
 */
export function concatChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const only = chunks.length === 1 ? chunks[0] : null;
  if (only && only.byteOffset === 0 && only.byteLength === only.buffer.byteLength && only.length === total) {
    return only;
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
