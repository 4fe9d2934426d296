/**
 * Binary model files damaged by text handling, made the way the damage happens: decoded as UTF-8 with replacement
 * and encoded back (what a text checkout, an editor or a web form does), and a symbolic link git wrote as a file of
 * its target's path. Against them, the same files cut short, which must keep their own diagnosis.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadHeader, SNIFF_BYTES } from '../load-header';
import { memoryReader } from '../../testing/fuzz/memory-reader';
import { MAX_LINK_TEXT_BYTES, replacementCount } from './text-damage';

const GGUF = new Uint8Array(readFileSync(new URL('../../../fixtures/gguf/tiny-llama-Q4_K_M.gguf', import.meta.url)));
const SAFETENSORS = new Uint8Array(readFileSync(new URL('../../../fixtures/torch/model.safetensors', import.meta.url)));

/** The file as a text round trip leaves it: every invalid UTF-8 sequence replaced by U+FFFD. */
function textRoundTrip(bytes: Uint8Array): Uint8Array {
  return new TextEncoder().encode(new TextDecoder('utf-8').decode(bytes));
}

/**
 * The same file with its header padded (JSON allows trailing spaces) until the length prefix's low byte is over
 * 0x7F: that byte alone is not UTF-8, so a text round trip replaces it, as it does in most real prefixes.
 */
function withPrefixByteOver0x7f(file: Uint8Array): Uint8Array {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const length = Number(view.getBigUint64(0, true));
  let padded = length;
  while ((padded & 0xff) < 0x80) {
    padded++;
  }
  const out = new Uint8Array(file.length + padded - length);
  new DataView(out.buffer).setBigUint64(0, BigInt(padded), true);
  out.set(file.subarray(8, 8 + length), 8);
  out.fill(0x20, 8 + length, 8 + padded);
  out.set(file.subarray(8 + length), 8 + padded);
  return out;
}

async function findingsOf(bytes: Uint8Array, name: string) {
  const loaded = await loadHeader(memoryReader(bytes, 'local', { name }));
  return loaded.outcome.kind === 'rejected' ? loaded.outcome.file.findings : loaded.outcome.header.findings;
}

describe('a file a text conversion damaged', () => {
  it('says so for a GGUF, instead of calling it truncated', async () => {
    const damaged = textRoundTrip(GGUF);
    expect(replacementCount(damaged)).toBeGreaterThan(64);
    const findings = await findingsOf(damaged, 'tiny-llama-Q4_K_M.gguf');
    expect(findings.map((finding) => finding.code)).toEqual(['text-converted']);
    expect(findings[0].message).toMatch(/replacement characters U\+FFFD \(bytes EF BF BD, the first at offset \d/);
  });

  it('says so for a safetensors file whose length prefix was converted', async () => {
    const findings = await findingsOf(textRoundTrip(withPrefixByteOver0x7f(SAFETENSORS)), 'model.safetensors');
    expect(findings.map((finding) => finding.code)).toEqual(['text-converted']);
  });

  it('keeps a cut-off download’s own diagnosis', async () => {
    const findings = await findingsOf(GGUF.subarray(0, 2000), 'tiny-llama-Q4_K_M.gguf');
    expect(findings.map((finding) => finding.code)).toEqual(['gguf-truncated']);
  });

  it('leaves a valid file alone', async () => {
    expect(await findingsOf(GGUF, 'tiny-llama-Q4_K_M.gguf')).toEqual([]);
  });
});

describe('a symbolic link stored as a file of its path', () => {
  it.each([
    ['last.ckpt', 'D:/Lucas/runs/checkpoints/deeponet-epoch=96-val_loss=2.03e-02.ckpt'],
    ['model.safetensors', '../../blobs/4d3c1e2a9b7f6e5d4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a2918f7e6d5c4'],
  ])('%s holding “%s”', async (name, target) => {
    const findings = await findingsOf(new TextEncoder().encode(target), name);
    expect(findings.map((finding) => finding.code)).toEqual(['link-as-text']);
    expect(findings[0].message).toContain(`holds only the text “${target}”`);
  });

  it('is not said of a text file of several lines', async () => {
    const findings = await findingsOf(new TextEncoder().encode('a/b.ckpt\nsecond line/x.pt\n'), 'x.ckpt');
    expect(findings.map((finding) => finding.code)).not.toContain('link-as-text');
  });

  it('is not said of one line of JSON whose escapes hold a backslash', async () => {
    const json = new TextEncoder().encode('{"\\u0000":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}');
    const findings = await findingsOf(json, 'model.safetensors');
    expect(findings.map((finding) => finding.code)).toEqual(['text-file']);
  });

  it('a local read and a remote one agree on a one-line path text longer than the sniff', async () => {
    const long = new TextEncoder().encode(`D:/${'runs/'.repeat(Math.ceil(SNIFF_BYTES / 5))}last.ckpt`);
    expect(long.length).toBeGreaterThan(MAX_LINK_TEXT_BYTES);
    const local = await loadHeader(memoryReader(long, 'local', { name: 'last.ckpt' }));
    const remote = await loadHeader(memoryReader(long, 'remote', { name: 'last.ckpt' }));
    const codes = (loaded: typeof local) =>
      loaded.outcome.kind === 'rejected' ? loaded.outcome.file.findings.map((finding) => finding.code) : [];
    expect(codes(local)).toEqual(['text-file']);
    expect(codes(remote)).toEqual(codes(local));
  });

  it('reads a path of every length the diagnosis takes within the sniff', () => {
    expect(MAX_LINK_TEXT_BYTES).toBeLessThanOrEqual(SNIFF_BYTES);
  });
});

describe('files that are no model by their first bytes', () => {
  it('calls a text file a text file, quoting its opening', async () => {
    const text = new TextEncoder().encode('output_norm=F32\ntoken_embd=Q6_K\nblk.0.attn_k=Q4_K\n');
    const findings = await findingsOf(text, 'test.gguf');
    expect(findings.map((finding) => finding.code)).toEqual(['text-file']);
    expect(findings[0].message).toContain('it opens “output_norm=F32 token_embd=Q6_K blk.0.attn_k=Q4_K”');
  });

  it('leaves a protocol-0 pickle, which is printable text too, to the pickle reader', async () => {
    const pickle = new Uint8Array(readFileSync(new URL('../../../fixtures/torch/hostile-exec.pkl', import.meta.url)));
    const findings = await findingsOf(pickle, 'hostile-exec.pkl');
    expect(findings.map((finding) => finding.code)).toContain('pickle-dangerous-global');
    expect(findings.map((finding) => finding.code)).not.toContain('text-file');
  });

  it('says a .gguf of other binary bytes lacks GGUF’s magic, instead of parsing them as a header', async () => {
    const other = Uint8Array.from({ length: 600 }, (_, at) => (at * 7 + 1) % 256);
    const findings = await findingsOf(other, 'model.gguf');
    expect(findings.map((finding) => finding.code)).toEqual(['gguf-bad-magic']);
    expect(findings[0].message).toContain('it opens 01 08 0f 16 1d 24 2b 32');
  });

  it('names a pre-release GGUF (magic FUGG) for what it is', async () => {
    // The tiny fixture with its magic written the way llama.cpp wrote it before GGUF's release.
    const old = GGUF.slice();
    old.set(new TextEncoder().encode('FUGG'), 0);
    const findings = await findingsOf(old, 'example.gguf');
    expect(findings.map((finding) => finding.code)).toEqual(['legacy-ggml']);
    expect(findings[0].message).toMatch(/^This is a GGUF from before GGUF's release \(magic “FUGG”, version 3/);
  });
});
