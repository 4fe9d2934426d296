/**
 * The PyTorch checkpoint entry of the format registry (formats/format-readers.ts): torch.save zips, legacy (torch < 1.6)
 * streams and bare pickles, read header-only by read-checkpoint.ts and never executed.
 */
import { checkDcpBytesEntries } from './dcp-bytes';
import { mergeCheckpointSections } from './merge-shards';
import { lengthPrefixIsPlausible, sniffNotSafetensors } from '../not-safetensors';
import type { FormatReader } from '../format-reader';
import { readCheckpoint, sniffCheckpoint, type CheckpointKind } from './read-checkpoint';

/** Enough for a protocol-0 pickle's first GLOBAL line and for the not-safetensors sniffers it defers to. */
const SNIFF_BYTES = 512;

/**
 * Zip or pickle by content only. A safetensors-shaped prefix always stays with the safetensors reader (0x80 0x02 is
 * both pickle's PROTO 2 and a plausible header length), and a protocol-0 pickle (no magic) is claimed only when its
 * first bytes cannot be a length prefix.
 */
function checkpointKind(head: Uint8Array, size: number | null): CheckpointKind | null {
  const kind = sniffCheckpoint(head);
  if (kind === null) {
    return null;
  }
  const diagnosis = sniffNotSafetensors(head, size ?? head.length);
  if (diagnosis?.code === 'zip-archive' || diagnosis?.code === 'pickle') {
    return kind;
  }
  const plausible = lengthPrefixIsPlausible(head, size) || lengthPrefixIsPlausible(head, null);
  // A protocol-0 pickle is printable text: the text-file diagnosis does not keep it from the pickle reader.
  const undiagnosed = diagnosis === null || diagnosis.code === 'text-file';
  return undiagnosed && !plausible && kind === 'pickle' ? kind : null;
}

export const pytorchFormat: FormatReader = {
  id: 'pytorch',
  // No dispatch by name: `.bin` is also GGUF, TorchScript or anything else, and a file whose bytes are not a zip or
  // a pickle is better served by the not-safetensors diagnoses than by a pickle parse error.
  extensions: [],
  label: 'PyTorch checkpoint',
  // `.metadata`: a Distributed Checkpoint's, beside its .distcp files (dcp-metadata.ts).
  usualExtensions: ['.bin', '.pt', '.pth', '.ckpt', '.pkl', '.metadata'],
  // transformers' `pytorch_model-00001-of-00002.bin` with `pytorch_model.bin.index.json`.
  shardNaming: [{ extension: 'bin', separators: '-_', digits: [5, 6], indexSuffix: '.bin.index.json' }],
  mergeShards: (parts, merged) => {
    const sections = mergeCheckpointSections(parts.map((part) => part.header));
    return sections ? { ...merged, ...sections } : null;
  },
  sniffBytes: SNIFF_BYTES,
  sniff: (head, size) => checkpointKind(head, size) !== null,
  read: async (source, options) => {
    const kind = checkpointKind(source.head, source.size) ?? 'pickle';
    const loaded = await readCheckpoint(source.reader, source.head, kind, { signal: options.signal });
    const header = loaded.outcome.kind === 'parsed' ? loaded.outcome.header : null;
    if (header?.dcp && header.dcp.byteEntries.length > 0) {
      // dcp.load unpickles each bytes entry unchecked: judged now, from the .distcp files beside the metadata.
      const open = options.openBeside ?? (() => null);
      header.findings.push(...(await checkDcpBytesEntries(header.dcp.byteEntries, open, options.signal)));
    }
    // readCheckpoint counts the head it was given plus its own reads; the source may have read more before.
    return { ...loaded, bytesRead: source.bytesRead - source.head.length + loaded.bytesRead };
  },
};
