/** Small helpers shared by the parser's tests (not used by app code). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { Finding, ParseOutcome, ParsedHeader } from '../core/model';
import { referenceLoaderVerdict } from '../core/model';
import type { FindingCode } from '../core/findings/codes';
import { buildRaw } from './build-safetensors';
import { parseFileHead } from '../core/parse/parse-header';
import { loadHeader } from '../core/load-header';
import { tensorName } from '../core/model';
import { memoryReader } from './fuzz/memory-reader';

/** Parses a whole in-memory file, its size known. */
export function parseBytes(file: Uint8Array): ParseOutcome {
  return parseFileHead(file, file.length);
}

/** A file whose header is exactly `text` (no padding), followed by `dataBytes` zero bytes. */
export function rawFile(text: string | Uint8Array, dataBytes = 0): Uint8Array {
  return buildRaw(text, { trailing: dataBytes });
}

export function findingsOf(outcome: ParseOutcome): Finding[] {
  return outcome.kind === 'parsed' ? outcome.header.findings : outcome.file.findings;
}

export function codesOf(outcome: ParseOutcome): FindingCode[] {
  return findingsOf(outcome).map((finding) => finding.code);
}

/** Codes other than the purely informational padding note, which depends on the header's length only. */
export function problemCodes(outcome: ParseOutcome): FindingCode[] {
  return codesOf(outcome).filter((code) => code !== 'header-not-padded');
}

export function verdictOf(outcome: ParseOutcome): 'accepts' | 'refuses' {
  return referenceLoaderVerdict(findingsOf(outcome));
}

export function finding(outcome: ParseOutcome, code: FindingCode): Finding {
  const found = findingsOf(outcome).find((candidate) => candidate.code === code);
  expect(found, `expected a ${code} finding, got ${codesOf(outcome).join(', ') || 'none'}`).toBeDefined();
  return found as Finding;
}

export function parsedHeader(outcome: ParseOutcome): ParsedHeader {
  if (outcome.kind !== 'parsed') {
    throw new Error(`expected a parsed header, got rejected: ${codesOf(outcome).join(', ')}`);
  }
  return outcome.header;
}

/**
 * A file of any format held in memory, read as the app reads a local file (format sniffed): its parsed header and
 * every tensor's name, as the analyses take them.
 */
export async function loadedLocally(file: Uint8Array): Promise<{ header: ParsedHeader; names: string[] }> {
  const header = parsedHeader((await loadHeader(memoryReader(file, 'local'))).outcome);
  return { header, names: Array.from({ length: header.tensors.count }, (_, row) => tensorName(header.tensors, row)) };
}

/** A header entry as JSON text. */
export function entry(dtype: string, shape: readonly number[], begin: number, end: number): string {
  return `{"dtype":"${dtype}","shape":[${shape.join(',')}],"data_offsets":[${begin},${end}]}`;
}

/** A GGUF fixture written by llama.cpp's own writer (fixtures/gguf/, scripts/gguf-fixtures.py), read as a local file. */
export async function loadedGgufFixture(file: string): Promise<{ header: ParsedHeader; names: string[] }> {
  return loadedLocally(
    new Uint8Array(readFileSync(fileURLToPath(new URL(`../../fixtures/gguf/${file}`, import.meta.url)))),
  );
}
