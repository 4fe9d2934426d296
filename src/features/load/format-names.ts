/**
 * How the first screen, the drop overlay and the file pickers name the formats the app reads: from the format
 * registry, so a format appears everywhere once it is registered.
 */
import { READABLE_FORMATS, type ReadableFormat } from '../../core/formats/format-readers';

/** `safetensors (.safetensors, .sft)`, `PyTorch checkpoint (.bin, .pt, .pth, .ckpt, .pkl)`. */
export function formatName(format: ReadableFormat): string {
  return format.extensions.length === 0 ? format.label : `${format.label} (${format.extensions.join(', ')})`;
}

/** `a, b or c`: every format read, in one phrase. */
export function readableFormatsPhrase(formats: readonly ReadableFormat[] = READABLE_FORMATS): string {
  const names = formats.map(formatName);
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/**
 * The picker's `accept`: every format's endings, `.json` for shard indexes and configs, and
 * `application/octet-stream` for files the system gives no type.
 */
export function pickableFiles(formats: readonly ReadableFormat[] = READABLE_FORMATS): string {
  const endings = new Set(formats.flatMap((format) => format.extensions));
  return [...endings, '.json', 'application/octet-stream'].join(',');
}
