/**
 * Which reader opens a file. Dispatch is by content first (each reader's cheap sniff over the first bytes, in the
 * order below), then by name (a reader whose extension the file has), and finally the safetensors reader's own
 * diagnosis: the "not safetensors" sniffers (not-safetensors.ts) say what the file is instead, or the safetensors
 * parser says why its header cannot be read. To add a format, see format-reader.ts.
 */
import { ggufFormat } from './gguf/gguf-reader';
import { pytorchFormat } from './pytorch/pytorch-reader';
import { safetensorsFormat } from './safetensors';
import type { FormatReader, SectionPage, SectionPageRequest, ShardNaming, ShardPart } from './format-reader';
import type { ParsedHeader } from '../model';
import type { TokenList } from '../analysis/tokenizer/tokenizer-types';

/** Every format the app reads, in sniffing order. Safetensors is first: its 8-byte claim is checked before all. */
const FORMAT_READERS: readonly FormatReader[] = [safetensorsFormat, ggufFormat, pytorchFormat];

export interface SniffContext {
  /** The file's size; null when unknown. */
  size: number | null;
  /** The file name (or last URL segment), for dispatch by name. */
  name: string;
  /** The user chose "parse anyway" for an oversized safetensors header. */
  allowOversizedHeader?: boolean;
}

/**
 * The reader whose sniff matches `head`, considering only readers that need at most `head.length` bytes unless
 * `complete` says no more bytes will come; null when none does yet.
 */
export function sniffFormat(head: Uint8Array, context: SniffContext, complete: boolean): FormatReader | null {
  for (const reader of FORMAT_READERS) {
    if ((complete || head.length >= reader.sniffBytes) && reader.sniff(head, context.size, context)) {
      return reader;
    }
  }
  return null;
}

/** A reader other than safetensors that claims the file by its name; safetensors is the fallback anyway. */
export function formatByName(name: string): FormatReader | null {
  const lower = name.toLowerCase();
  return (
    FORMAT_READERS.find(
      (reader) => reader !== safetensorsFormat && reader.extensions.some((extension) => lower.endsWith(extension)),
    ) ?? null
  );
}

/** The endings a reader's files carry: those it dispatches on and those it is usually given. */
function endingsOf(reader: FormatReader): readonly string[] {
  return [...reader.extensions, ...(reader.usualExtensions ?? [])];
}

/** The format a file name says it is by its ending (`.gguf`, `.safetensors`, `.bin`), or null. */
export function formatForFileName(name: string): FormatReader | null {
  const lower = name.toLowerCase();
  return FORMAT_READERS.find((reader) => endingsOf(reader).some((ending) => lower.endsWith(ending))) ?? null;
}

/** Every shard naming of every format, in registry order; the index endings among them name the shard indexes. */
export const SHARD_NAMINGS: readonly ShardNaming[] = FORMAT_READERS.flatMap((reader) => reader.shardNaming ?? []);

/** A format's shard namings, by its id (`gguf`); empty when it has none. */
export function shardPatternFor(formatId: string): readonly ShardNaming[] {
  return FORMAT_READERS.find((reader) => reader.id === formatId)?.shardNaming ?? [];
}

/** Whether a listed or dropped file is one the app opens: a model file by its ending, or a shard index. */
export function isPickableFileName(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    formatForFileName(lower) !== null ||
    SHARD_NAMINGS.some((naming) => naming.indexSuffix !== undefined && lower.endsWith(naming.indexSuffix))
  );
}

/**
 * A shard set as one header with its format's own sections and set-level checks (`mergeShards` of the first reader
 * that claims the parts); `merged` unchanged when no format adds anything (safetensors).
 */
export function mergeShardSections(parts: readonly ShardPart[], merged: ParsedHeader): ParsedHeader {
  for (const reader of FORMAT_READERS) {
    const result = reader.mergeShards?.(parts, merged);
    if (result) {
      return result;
    }
  }
  return merged;
}

/** The id of the registered format a file name says it is (`.gguf` → `gguf`), or null. */
export function formatIdOfFileName(name: string): string | null {
  return formatForFileName(name)?.id ?? null;
}

/** A format the app reads, as the first screen and the file pickers name it. */
export interface ReadableFormat {
  label: string;
  extensions: readonly string[];
}

/** Every format the app reads, in sniffing order: the one list the first screen and the pickers take names from. */
export const READABLE_FORMATS: readonly ReadableFormat[] = FORMAT_READERS.map((reader) => ({
  label: reader.label ?? reader.id,
  extensions: reader.usualExtensions ?? reader.extensions,
}));

/** The tokens and merges a header holds itself (a GGUF's), from the reader that owns its format; null if none. */
export function tokenListOf(header: ParsedHeader, head: Uint8Array): TokenList | null {
  for (const reader of FORMAT_READERS) {
    const list = reader.tokenList?.(header, head);
    if (list) {
      return list;
    }
  }
  return null;
}

/** A page of a format's long list (GGUF's tokens), from the reader that owns the header's format; null if none. */
export function pageSection(header: ParsedHeader, head: Uint8Array, request: SectionPageRequest): SectionPage | null {
  for (const reader of FORMAT_READERS) {
    const page = reader.pageSection?.(header, head, request);
    if (page) {
      return page;
    }
  }
  return null;
}
