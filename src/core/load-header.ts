/**
 * Reads a file's header through a ByteReader: the first read, a few more bytes when the format is not yet clear,
 * then the reader the format registry (formats/format-readers.ts) picks. The data region is never read.
 */
import type { ByteReader } from './bytes/byte-reader';
import { formatByName, sniffFormat } from './formats/format-readers';
import { SourceBytes } from './formats/source-bytes';
import type { LoadedHeader, LoadHeaderOptions } from './formats/format-reader';
import { parseFileHead } from './parse/parse-header';
import { textConversionFinding } from './formats/text-damage';

/** Bytes read for content sniffing when the first read is not a safetensors header (LFS pointers, HTML, zip…). */
export const SNIFF_BYTES = 512;

export async function loadHeader(reader: ByteReader, options: LoadHeaderOptions = {}): Promise<LoadedHeader> {
  const source = await SourceBytes.open(reader, options.signal);
  options.onProgress?.(source.bytesRead, null);
  const first = source.head;
  // The size as the first read showed it; a rejection below reports it, as the safetensors parser always has.
  const size = source.size;
  if (first.length < 8) {
    return { outcome: parseFileHead(first, size ?? first.length), head: first, bytesRead: source.bytesRead };
  }
  const context = { size, name: reader.name, allowOversizedHeader: options.allowOversizedHeader };
  let format = sniffFormat(first, context, false);
  if (!format) {
    // Not a header we will read yet: look at a few more bytes so a reader (or the finding) can tell what it is.
    if (first.length < SNIFF_BYTES && (size === null || size > first.length)) {
      await source.prefix(SNIFF_BYTES);
    }
    format = sniffFormat(source.head, context, true) ?? formatByName(reader.name);
  }
  if (format) {
    return withTextDamage(await format.read(source, options));
  }
  const sniffed = source.head;
  return withTextDamage({
    outcome: parseFileHead(sniffed, size ?? sniffed.length, { allowOversizedHeader: options.allowOversizedHeader }),
    head: sniffed,
    bytesRead: source.bytesRead,
  });
}

/**
 * A rejected file whose bytes show a text conversion (formats/text-damage.ts) is explained by that instead: the
 * reader's own words (a truncated header, an invalid type) are the damage's symptoms, and its advice (download it
 * again) would not help.
 */
function withTextDamage(loaded: LoadedHeader): LoadedHeader {
  if (loaded.outcome.kind !== 'rejected' || loaded.outcome.file.findings.some((f) => f.code === 'text-converted')) {
    return loaded;
  }
  const damage = textConversionFinding(loaded.head);
  return damage === null
    ? loaded
    : { ...loaded, outcome: { kind: 'rejected', file: { ...loaded.outcome.file, findings: [damage] } } };
}
