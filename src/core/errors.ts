/**
 * Errors from reading a source (not from the file's content: content problems are Findings).
 * They cross the worker boundary as plain data, so the code is a field, not a class.
 */
export type SourceErrorCode =
  | 'aborted'
  | 'file-unreadable'
  | 'invalid-url'
  | 'unsupported-scheme'
  | 'network'
  | 'cors'
  | 'timeout'
  | 'range-ignored'
  | 'range-mismatch'
  | 'http-401'
  | 'http-403'
  | 'http-404'
  | 'http-416'
  | 'http-429'
  | 'http-5xx'
  | 'http-other'
  | 'too-many-redirects'
  /** Two answers of one load named different versions of the file (ETag, size or Last-Modified changed). */
  | 'source-changed'
  /** The server compressed a byte-range answer (Content-Encoding on a 206), so offsets cannot be trusted. */
  | 'compressed-response'
  /** A folder drop or repository holds no .safetensors file (nor index) to open. */
  | 'no-model-files'
  | 'internal';

export interface SerializedSourceError {
  code: SourceErrorCode;
  message: string;
  status?: number;
  url?: string;
}

export class SourceError extends Error {
  readonly code: SourceErrorCode;
  readonly status?: number;
  readonly url?: string;

  constructor(code: SourceErrorCode, message: string, extra: { status?: number; url?: string } = {}) {
    super(message);
    this.name = 'SourceError';
    this.code = code;
    this.status = extra.status;
    this.url = extra.url;
  }

  toJSON(): SerializedSourceError {
    return { code: this.code, message: this.message, status: this.status, url: this.url };
  }
}

export function serializeError(error: unknown): SerializedSourceError {
  if (error instanceof SourceError) {
    return error.toJSON();
  }
  if (error instanceof DOMException && error.name === 'AbortError') {
    return { code: 'aborted', message: 'Loading was cancelled.' };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'internal', message: `Unexpected error: ${message}. This is a bug in Safetensors Lens.` };
}
