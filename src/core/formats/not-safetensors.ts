/**
 * Recognises files that are not safetensors at all (an LFS pointer, a saved web page, a PyTorch archive…) from
 * their first bytes, so the user hears what the file is instead of "header too large". Each is a FormatDiagnosis
 * (format-reader.ts) listed in NOT_SAFETENSORS_DIAGNOSES; the registry (format-readers.ts) consults format readers first, so a
 * reader for one of these formats takes its files over and its diagnosis entry can go.
 *
 * Magic bytes are only trusted when the length prefix is implausible: a real header length makes bytes 4..7 zero
 * and is followed by `{`, while every format below puts text or magic in those bytes. That keeps a valid file
 * whose length happens to start 0x80 0x02 (pickle's magic) from ever being misread.
 */
import { makeFinding } from '../findings/make-finding';
import { MAX_HEADER_LENGTH_OVERRIDE, MIN_FILE_SIZE } from '../limits';
import type { Finding } from '../model';
import { formatBytes, formatCount } from '../parse/message-format';
import { readLengthPrefix } from '../parse/length-prefix';
import type { FormatDiagnosis } from './format-reader';
import { linkAsTextFinding, textConversionFinding, textFileFinding } from './text-damage';

/** The smallest header JSON, `{}`. */
const MIN_HEADER_JSON_BYTES = 2;
/** Bytes that may start the header JSON: `{`, JSON whitespace, or a UTF-8 BOM's first byte (reported later). */
const HEADER_START_BYTES = new Set([0x7b, 0x20, 0x09, 0x0a, 0x0d, 0xef]);
/** Bytes of a too-short file shown in hex, so the user can see what is there. */
const MAX_HEX_BYTES_SHOWN = 8;
/** Bytes of an LFS pointer searched for its `size` line (pointers are about 130 bytes). */
const LFS_POINTER_MAX_BYTES = 1024;

const LFS_POINTER_PREFIX = 'version https://git-lfs.github.com/spec/v1';
const ZIP_LOCAL_FILE_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const PICKLE_PROTO_OPCODE = 0x80;
/** HDF5's superblock signature (Keras .h5/.keras weights, TensorFlow's older checkpoints). */
const HDF5_SIGNATURE = [0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a];
/** NumPy's .npy magic: 0x93 then NUMPY. */
const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];
/** A FlatBuffer's file identifier sits after its 4-byte root offset; TensorFlow Lite's is TFL3. */
const TFLITE_IDENTIFIER_AT = 4;
/** GGML's magics before GGUF, as the little-endian uint32 the files start with (ggml.h, llama.cpp's old loader). */
const LEGACY_GGML_MAGICS: ReadonlyMap<number, string> = new Map([
  [0x67676d6c, 'ggml'],
  [0x67676d66, 'ggmf'],
  [0x67676a74, 'ggjt'],
  [0x67676c61, 'ggla'],
  // GGUF's bytes reversed: llama.cpp wrote this magic while GGUF was being made (its tests' files until 18 August 2023).
  [0x47475546, 'FUGG'],
]);
/** An ONNX ModelProto opens with ir_version (field 1, a small varint), then producer_name (field 2, a short string). */
const ONNX_MAX_IR_VERSION = 30;
const ONNX_MAX_PRODUCER_BYTES = 64;
/** Pickle protocols 2–5 start with PROTO n; 0 and 1 have no marker and are not recognised. */
const PICKLE_MIN_PROTOCOL = 2;
const PICKLE_MAX_PROTOCOL = 5;

function startsWith(bytes: Uint8Array, magic: readonly number[], at = 0): boolean {
  if (bytes.length < at + magic.length) {
    return false;
  }
  return magic.every((byte, i) => bytes[at + i] === byte);
}

function startsWithText(bytes: Uint8Array, text: string, at = 0, ignoreCase = false): boolean {
  if (bytes.length < at + text.length) {
    return false;
  }
  for (let i = 0; i < text.length; i++) {
    let c = bytes[at + i];
    if (ignoreCase && c >= 0x41 && c <= 0x5a) {
      c |= 0x20;
    }
    if (c !== text.charCodeAt(i)) {
      return false;
    }
  }
  return true;
}

/** Whether the first 8 bytes read as the length of a header that could follow them. */
export function lengthPrefixIsPlausible(firstBytes: Uint8Array, fileSize: number | null): boolean {
  const { length, exact } = readLengthPrefix(firstBytes);
  if (!exact || length > MAX_HEADER_LENGTH_OVERRIDE || length < MIN_HEADER_JSON_BYTES) {
    return false;
  }
  if (fileSize !== null && 8 + length > fileSize) {
    return false;
  }
  return firstBytes.length <= 8 || HEADER_START_BYTES.has(firstBytes[8]);
}

function hexBytes(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, MAX_HEX_BYTES_SHOWN), (byte) => byte.toString(16).padStart(2, '0')).join(' ');
}

function lfsPointerSize(bytes: Uint8Array): number | null {
  const text = new TextDecoder('utf-8').decode(bytes.subarray(0, LFS_POINTER_MAX_BYTES));
  const match = /^size (\d+)$/m.exec(text);
  return match ? Number(match[1]) : null;
}

function isHtml(bytes: Uint8Array): boolean {
  let at = startsWith(bytes, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  while (at < bytes.length && (bytes[at] === 0x20 || (bytes[at] >= 0x09 && bytes[at] <= 0x0d))) {
    at++;
  }
  return startsWithText(bytes, '<!doctype', at, true) || startsWithText(bytes, '<html', at, true);
}

/**
 * A finding that says what the file is instead, or null when it may be safetensors. `firstBytes` is the start
 * of the file (a few hundred bytes is plenty); `fileSize` null means unknown.
 */
export function sniffNotSafetensors(firstBytes: Uint8Array, fileSize: number | null): Finding | null {
  // A reader returns fewer bytes than asked only at the end of the source, so a short read is the whole file.
  const size = fileSize ?? (firstBytes.length < MIN_FILE_SIZE ? firstBytes.length : null);
  if (size === 0) {
    return makeFinding(
      'empty-file',
      'The file is empty (0 bytes): a download or copy did not finish. Download the file again.',
    );
  }
  if (size !== null && size < MIN_FILE_SIZE) {
    return makeFinding(
      'too-short',
      `The file is only ${formatCount(size)} bytes (${hexBytes(firstBytes) || 'unreadable'}); a safetensors file starts with an 8-byte header length followed by the header itself. This is a placeholder or a failed download: download the file again.`,
    );
  }
  // A prefix that reads as a header length followed by `{` is safetensors-shaped even when that length runs past the
  // end of the file (a cut-off download): its first bytes are not another format's magic (0x80 0x02 is also
  // pickle's PROTO 2), and the parser reports the length instead. Real pickles, zips and GGUFs never look like this.
  if (
    firstBytes.length < MIN_FILE_SIZE ||
    lengthPrefixIsPlausible(firstBytes, fileSize) ||
    (firstBytes.length > MIN_FILE_SIZE && lengthPrefixIsPlausible(firstBytes, null))
  ) {
    return null;
  }
  for (const diagnosis of NOT_SAFETENSORS_DIAGNOSES) {
    const finding = diagnosis.diagnose(firstBytes, size);
    if (finding) {
      return finding;
    }
  }
  return null;
}

/**
 * The producer name of an ONNX ModelProto's opening (field 1 `ir_version` as a one-byte varint, then field 2
 * `producer_name`, printable ASCII), or null when the bytes do not open so.
 */
function onnxProducer(bytes: Uint8Array): string | null {
  const length = bytes[3];
  if (
    bytes.length < 4 ||
    bytes[0] !== 0x08 ||
    bytes[1] < 1 ||
    bytes[1] > ONNX_MAX_IR_VERSION ||
    bytes[2] !== 0x12 ||
    length < 1 ||
    length > ONNX_MAX_PRODUCER_BYTES ||
    bytes.length < 4 + length
  ) {
    return null;
  }
  const name = bytes.subarray(4, 4 + length);
  return name.every((byte) => byte >= 0x20 && byte < 0x7f) ? String.fromCharCode(...name) : null;
}

/** In the order they are tried; each looks for its format's signature in the first bytes. */
const NOT_SAFETENSORS_DIAGNOSES: readonly FormatDiagnosis[] = [
  {
    id: 'git-lfs-pointer',
    diagnose: (bytes) => {
      if (!startsWithText(bytes, LFS_POINTER_PREFIX)) {
        return null;
      }
      const realSize = lfsPointerSize(bytes);
      const sizeNote = realSize === null ? '' : ` (the real file is ${formatBytes(realSize)})`;
      return makeFinding(
        'git-lfs-pointer',
        `This is a Git LFS pointer: the real file was never downloaded; run \`git lfs pull\` or download via the resolve/ URL. The pointer is a small text file that stands in for the model${sizeNote}.`,
      );
    },
  },
  {
    id: 'link-as-text',
    diagnose: (bytes, fileSize) => linkAsTextFinding(bytes, fileSize),
  },
  {
    id: 'text-converted',
    diagnose: (bytes) => textConversionFinding(bytes),
  },
  {
    id: 'html-page',
    diagnose: (bytes) =>
      isHtml(bytes)
        ? makeFinding(
            'html-page',
            'This is an HTML page, not a model file: you saved a web page, use the resolve/ download link (on the Hugging Face Hub, the "download" button or a /resolve/main/… URL, not /blob/main/…).',
          )
        : null,
  },
  {
    id: 'zip-archive',
    diagnose: (bytes) =>
      startsWith(bytes, ZIP_LOCAL_FILE_MAGIC)
        ? makeFinding(
            'zip-archive',
            "This is a ZIP archive: a PyTorch .bin/.pt/.ckpt zip archive (pickled tensors), not safetensors. Loading it with torch.load can run code. Convert with safetensors' convert script or open the .safetensors version of the model if the repository has one.",
          )
        : null,
  },
  {
    id: 'legacy-ggml',
    diagnose: (bytes) => {
      if (bytes.length < 8) {
        return null;
      }
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const magic = LEGACY_GGML_MAGICS.get(view.getUint32(0, true));
      if (magic === undefined) {
        return null;
      }
      const version = magic === 'ggml' ? null : view.getUint32(4, true);
      const named = `magic “${magic}”${version === null ? '' : `, version ${version}`}`;
      if (magic === 'FUGG') {
        return makeFinding(
          'legacy-ggml',
          `This is a GGUF from before GGUF's release (${named}, GGUF's magic reversed, as llama.cpp wrote it while ` +
            'the format was being made in August 2023): llama.cpp and gguf-py refuse it, and downloading it again ' +
            'will not help. Convert the original weights again with convert_hf_to_gguf.py.',
        );
      }
      const what =
        magic === 'ggml'
          ? `a GGML file (${named}): the format whisper.cpp's models, and llama.cpp's before GGUF, are written in. ` +
            'whisper.cpp loads it as it is; a llama.cpp model this old must be converted again from its original ' +
            'weights with convert_hf_to_gguf.py.'
          : magic === 'ggla'
            ? `an old llama.cpp LoRA adapter (${named}), from before GGUF; convert the PEFT adapter again with ` +
              'convert_lora_to_gguf.py.'
            : `a GGML model in llama.cpp's format from before GGUF (${named}), which llama.cpp stopped reading when ` +
              'GGUF replaced it in August 2023; convert the original weights with convert_hf_to_gguf.py.';
      return makeFinding('legacy-ggml', `This is ${what} This app reads GGUF, its successor.`);
    },
  },
  {
    id: 'hdf5-file',
    diagnose: (bytes) =>
      startsWith(bytes, HDF5_SIGNATURE)
        ? makeFinding(
            'hdf5-file',
            'This is an HDF5 file, as Keras saves .h5 weights and TensorFlow its older checkpoints, not safetensors. ' +
              "Read it with h5py or Keras and write the tensors with safetensors' save_file, or open the .safetensors " +
              'version of the model.',
          )
        : null,
  },
  {
    id: 'numpy-array',
    diagnose: (bytes) =>
      startsWith(bytes, NPY_MAGIC)
        ? makeFinding(
            'numpy-array',
            `This is a NumPy .npy array (format ${bytes[6] ?? '?'}.${bytes[7] ?? '?'}): one array, not a safetensors ` +
              "file. numpy.load reads it (allow_pickle=False keeps an object array from running code); safetensors' " +
              'numpy save_file writes arrays as safetensors.',
          )
        : null,
  },
  {
    id: 'tflite-model',
    diagnose: (bytes) =>
      startsWithText(bytes, 'TFL3', TFLITE_IDENTIFIER_AT)
        ? makeFinding(
            'tflite-model',
            'This is a TensorFlow Lite model (a FlatBuffer, identifier TFL3), not safetensors: open it with the ' +
              'TFLite interpreter or a graph viewer such as Netron.',
          )
        : null,
  },
  {
    id: 'onnx-model',
    diagnose: (bytes) => {
      const producer = onnxProducer(bytes);
      return producer === null
        ? null
        : makeFinding(
            'onnx-model',
            `This looks like an ONNX model (a protobuf ModelProto: IR version ${bytes[1]}, producer “${producer}”), ` +
              'not safetensors. ONNX Runtime runs it; a graph viewer such as Netron shows its weights, and ' +
              "onnx.numpy_helper with safetensors' save_file can export them.",
          );
    },
  },
  {
    id: 'pickle',
    diagnose: (bytes) =>
      bytes[0] === PICKLE_PROTO_OPCODE && bytes[1] >= PICKLE_MIN_PROTOCOL && bytes[1] <= PICKLE_MAX_PROTOCOL
        ? makeFinding(
            'pickle',
            `This is a Python pickle (protocol ${bytes[1]}), as in legacy PyTorch .bin/.pt files: unpickling can run arbitrary code. Convert it with safetensors' convert script in a sandbox, or open the .safetensors version of the model.`,
          )
        : null,
  },
  {
    // Last: every format above that is text (an LFS pointer, a web page, a link's path) has its own words.
    id: 'text-file',
    diagnose: (bytes) => textFileFinding(bytes),
  },
];
