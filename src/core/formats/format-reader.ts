/**
 * The shape every file format plugs into: a cheap sniff over the first bytes, then a read that asks the source for
 * the byte ranges it needs (at the start, in the middle or at the end of the file, in as many sequential steps as
 * the format needs) and parses them into the common columnar tensor model (core/model.ts) plus the format's own
 * sections. The registry (format-readers.ts) picks the reader: by content first, then by file name.
 *
 * ## Adding a format (for example the PyTorch zip / legacy / pickle reader)
 *
 * 1. Write `src/core/formats/<format>/…` with one exported `FormatReader`:
 *    - `sniff(head, size)` looks only at the bytes it is given (at least `sniffBytes` of them, or the whole file
 *      when it is shorter) and never reads. Return true only on a signature: magic bytes, a structure that cannot be
 *      a safetensors length prefix. The safetensors reader is consulted first, so a file whose first 8 bytes read
 *      as a plausible header length never reaches another reader.
 *    - `read(source)` drives `source` (a SourceBytes, source-bytes.ts) to get its bytes:
 *      `source.head` holds what is already read from offset 0 (never read it again); `source.prefix(n)` extends it;
 *      `source.read(offset, length)` reads any range and serves ranges already held for free;
 *      `source.readTail(length)` reads the last `length` bytes, e.g. a zip's end-of-central-directory record.
 *      `source.size` is known once the first response arrived (a local file always; a remote one from its
 *      Content-Range), so the tail, then the central directory it points to, then one member, are three awaited
 *      calls in a row. Every byte goes through the ByteReader, so request and byte counts in the UI and the report
 *      stay exact; `source.bytesRead` is what this load read and what `read` returns as `bytesRead`.
 *    - `read` returns a `LoadedHeader`: `outcome` is `parsed` (a ParsedHeader: the tensor columns, findings, and
 *      format-specific sections such as `format`, `pickle`, `checkpoint`) or `rejected` with findings saying why;
 *      `head` is what "download raw header" saves. It throws only SourceErrors from the reader (IO failures,
 *      cancellation); a malformed file is a `rejected` outcome, never an exception.
 * 2. Add it to `FORMAT_READERS` in format-readers.ts (order matters only between readers whose sniffs could overlap).
 * 3. If a "not safetensors" diagnosis (not-safetensors.ts) named the format, the reader wins over it in the
 *    loader; delete the diagnosis entry once nothing else relies on its message.
 * 4. Put the format's limits (bytes it may read, entries it may list) in its own module, each with its reason.
 * 5. If its models come split over several files, declare `shardNaming` (how the files are named, and the index
 *    beside them if any) and, when a set needs more than concatenated tables, `mergeShards`: the shard grouping
 *    (core/shards/shard-names.ts), source resolution and the worker's shard path then take the format as they are.
 */
import type { ByteReader } from '../bytes/byte-reader';
import type { Finding, ParseOutcome, ParsedHeader, TensorColumns } from '../model';
import type { SourceBytes } from './source-bytes';
import type { TokenList } from '../analysis/tokenizer/tokenizer-types';

export interface LoadHeaderOptions {
  signal?: AbortSignal;
  /** The user chose "parse anyway" for a safetensors header above the spec cap. */
  allowOversizedHeader?: boolean;
  onProgress?: (bytesRead: number, bytesTotal: number | null) => void;
  /** A few rows sent ahead while a big header is still arriving (only formats that can stream a preview). */
  onPreview?: (rows: TensorColumns) => void;
  /**
   * A file beside this one by its bare name, for a format whose header names files it must check (a Distributed
   * Checkpoint's .distcp files, whose bytes entries load as pickles); null when it is not at hand.
   */
  openBeside?: (name: string) => ByteReader | null;
}

export interface LoadedHeader {
  outcome: ParseOutcome;
  /** The header bytes actually used (for "download raw header"), or what was read of a rejected file. */
  head: Uint8Array;
  /** Bytes this load read from the source (8 + N for a valid local safetensors file). */
  bytesRead: number;
}

/** A page of a long list a format keeps in the worker (GGUF's token list), asked for by the view on demand. */
export interface SectionPageRequest {
  /** Which list: `tokens` for GGUF, `vocabulary` for a tokenizer.json read on demand, `index-entries` for an index's names. */
  section: string;
  /** The first id of the page; with `find`, the first match (0-based) of the page. */
  from: number;
  count: number;
  /** Only entries whose text contains this (case-sensitive, as tokens are). */
  find?: string;
}

export interface SectionPage {
  section: string;
  from: number;
  /** Entries in the whole list (ids 0 to total − 1), or the matches of `find`. */
  total: number;
  /** Each entry's text; null for an id no entry holds. */
  items: Array<string | null>;
  /** The entries' ids, when they are not from, from + 1, … (the matches of `find`). */
  ids?: number[];
  /** The text each entry stands for, where the list stores it encoded (a byte-level BPE's `Ġ` for a space). */
  decoded?: Array<string | null>;
  /** The shard file an index assigns each entry to (its tensor names' list). */
  shards?: string[];
}

/**
 * How a format names the files of one model split over several: `<prefix><sep><number>-of-<count>.<extension>`,
 * 1-based, the number and count zero-padded.
 */
export interface ShardNaming {
  /** The shard files' ending without the dot: `safetensors`, `bin`, `gguf`. */
  readonly extension: string;
  /** The characters allowed between the prefix and the number (`-_` for Hugging Face, `-` for llama.cpp). */
  readonly separators: string;
  /** How many digits the number and the count have: fewest and most. */
  readonly digits: readonly [number, number];
  /** The name ending of the index that maps tensors to shard files (`.safetensors.index.json`); none when absent. */
  readonly indexSuffix?: string;
  /**
   * One member's name is enough to open the whole set: the other names follow from the pattern (llama.cpp loads a
   * split GGUF from its first file's name). Formats with an index open the set from the index instead.
   */
  readonly siblingsByName?: boolean;
}

/** One file of a shard set, as the format's `mergeShards` sees it: in shard order, missing ones with a null header. */
export interface ShardPart {
  file: string;
  header: ParsedHeader | null;
  /** The shard number its name claims (`-00002-of-` → 2); null when the name follows no shard naming. */
  nameNumber: number | null;
  /** Why `header` is null (`HTTP 404`, `not among the dropped files`). */
  reason?: string;
}

export interface FormatReader {
  /** Stable id (`safetensors`, `pytorch`), used in tests and logs. */
  readonly id: string;
  /** Lower-case file name endings, for dispatch by name when no reader's sniff matched the content. */
  readonly extensions: readonly string[];
  /** What users call the format, as the first screen names it; the id when unset. */
  readonly label?: string;
  /**
   * The endings its files usually carry, named on the first screen and offered by the file pickers; `extensions`
   * when unset. Wider than `extensions` when an ending is too common to dispatch on (`.bin`).
   */
  readonly usualExtensions?: readonly string[];
  /** Bytes from offset 0 the sniff needs; the loader reads up to SNIFF_BYTES before asking readers that need more. */
  readonly sniffBytes: number;
  /**
   * Cheap and synchronous: whether `head` (the file's first bytes) is this format and this reader will read it.
   * `size` null means unknown.
   */
  sniff(head: Uint8Array, size: number | null, options: { allowOversizedHeader?: boolean }): boolean;
  /** Reads and parses the header through `source`. See the module comment for the contract. */
  read(source: SourceBytes, options: LoadHeaderOptions): Promise<LoadedHeader>;
  /**
   * A page of a list too long to send with the result, read from the header bytes the worker keeps (`head`); null
   * when `header` is not this format's or has no such list.
   */
  pageSection?(header: ParsedHeader, head: Uint8Array, request: SectionPageRequest): SectionPage | null;
  /** The tokenizer's every token and merge the header holds (GGUF's), read from `head`; null when it holds none. */
  tokenList?(header: ParsedHeader, head: Uint8Array): TokenList | null;
  /** How this format's multi-file models name their files; absent when it has none. */
  readonly shardNaming?: readonly ShardNaming[];
  /**
   * The format's own part of a shard set: `merged` is the set as one header (every part's tensors concatenated,
   * the first present part's metadata, the cross-shard findings); the result adds the format's sections and the
   * set-level checks only it knows. Null when the parts are not this format's.
   */
  mergeShards?(parts: readonly ShardPart[], merged: ParsedHeader): ParsedHeader | null;
}

/**
 * A format the app recognises only to say what a file is instead (an LFS pointer, a saved web page, a GGUF file):
 * a finding, and no reader. A reader for the same format replaces it.
 */
export interface FormatDiagnosis {
  readonly id: string;
  /**
   * The finding saying what the file is and what to do, or null when these first bytes are not this format.
   * `fileSize` is the file's size, null when unknown.
   */
  diagnose(head: Uint8Array, fileSize: number | null): Finding | null;
}
