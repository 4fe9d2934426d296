/**
 * Which reader opens a file. Dispatch is by content first (each reader's cheap sniff over the first bytes, in the
 * order below), then by name (a reader whose extension the file has), and finally the safetensors reader's own
 * diagnosis: the "not safetensors" sniffers (not-safetensors.ts) say what the file is instead, or the safetensors
 * parser says why its header cannot be read. To add a format, see format-reader.ts.
 */
import { ggufFormat } from './gguf/gguf-reader';
import { pytorchFormat } from './pytorch/pytorch-reader';
import { safetensorsFormat } from './safetensors';
import type { FormatReader, SectionPage, SectionPageRequest } from './format-reader';
import type { ParsedHeader } from '../model';

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

/**
 * The id of the registered format a file name says it is, by the endings its files usually carry (`.gguf` → `gguf`,
 * `.bin` → `pytorch`); null when no reader claims the ending. Names only: the content decides when the file is read.
 */
export function formatIdOfFileName(name: string): string | null {
  const lower = name.toLowerCase();
  const reader = FORMAT_READERS.find((candidate) =>
    (candidate.usualExtensions ?? candidate.extensions).some((extension) => lower.endsWith(extension)),
  );
  return reader?.id ?? null;
}

/** Shard index endings the repository listing offers beside the model files (`model.safetensors.index.json`). */
const PICKABLE_INDEX = /\.(?:safetensors|bin)\.index\.json$/i;

/**
 * Whether a repository listing offers the file to open: a model file of a registered format (by its name), or a
 * shard index. The listing shows these with their sizes; everything else (tokenizers, cards, code) stays out.
 */
export function isPickableFileName(name: string): boolean {
  return PICKABLE_INDEX.test(name) || formatIdOfFileName(name) !== null;
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
