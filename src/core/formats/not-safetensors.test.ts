import { describe, expect, it } from 'vitest';
import { buildSafetensors, lengthPrefix } from '../../testing/build-safetensors';
import { parseFileHead } from '../parse/parse-header';
import { codesOf } from '../../testing/parse-helpers';
import { sniffNotSafetensors } from './not-safetensors';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

function withSize(bytes: Uint8Array, size = bytes.length): { bytes: Uint8Array; size: number } {
  return { bytes, size };
}

const LFS_POINTER = text(
  'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 4943162240\n',
);

describe('sniffNotSafetensors', () => {
  it.each([
    ['empty-file', withSize(new Uint8Array(0))],
    ['too-short', withSize(new Uint8Array([0x0d, 0x0a]))],
    ['too-short', withSize(text('{}'))],
    ['git-lfs-pointer', withSize(LFS_POINTER)],
    ['html-page', withSize(text('<!DOCTYPE html><html><head><title>Hugging Face</title>'), 80_000)],
    ['html-page', withSize(text('\n\n  <html lang="en">'), 80_000)],
    ['html-page', withSize(text('<!doctype html>\n<html>'), 80_000)],
    ['zip-archive', withSize(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08, 0x08, 0x00, 0x00]), 1e9)],
    ['zip-archive', withSize(new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00]), 1e9)],
    ['pickle', withSize(new Uint8Array([0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20]), 1e6)],
    ['pickle', withSize(new Uint8Array([0x80, 0x04, 0x95, 0x34, 0x12, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x8c]), 1e6)],
  ])('recognises %s', (code, { bytes, size }) => {
    expect(sniffNotSafetensors(bytes, size)?.code).toBe(code);
  });

  it('says what to do in the messages', () => {
    expect(sniffNotSafetensors(LFS_POINTER, LFS_POINTER.length)?.message).toContain(
      'a Git LFS pointer: the real file was never downloaded; run `git lfs pull` or download via the resolve/ URL',
    );
    expect(sniffNotSafetensors(LFS_POINTER, LFS_POINTER.length)?.message).toContain('4.94 GB');
    expect(sniffNotSafetensors(text('<html><body>'), 5000)?.message).toContain(
      'you saved a web page, use the resolve/ download link',
    );
    const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00, 0x08, 0x08, 0x00, 0x00]);
    expect(sniffNotSafetensors(zip, 1e9)?.message).toMatch(/convert with safetensors' convert script/i);
  });

  it('never misreads a valid file whose length prefix starts like pickle', () => {
    // N = 0x0280 = 640: byte 0 is 0x80 and byte 1 is 0x02, exactly pickle protocol 2's opening.
    const padding = 640 - '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}'.length;
    const file = buildSafetensors([{ name: 'a', dtype: 'U8', shape: [1] }], {
      headerText: `{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}${' '.repeat(padding)}`,
      headerAlignment: 1,
    });
    expect(Array.from(file.subarray(0, 2))).toEqual([0x80, 0x02]);
    expect(sniffNotSafetensors(file, file.length)).toBeNull();
    expect(codesOf(parseFileHead(file, file.length))).toEqual([]);
  });

  it('never misreads a valid file whose length prefix starts like a zip', () => {
    // N = 0x04034b50 = 67,324,752 would read "PK\x03\x04" in its first four bytes.
    const head = new Uint8Array(16);
    head.set(lengthPrefix(0x04034b50));
    head.set(text('{"a"'), 8);
    expect(sniffNotSafetensors(head, 8 + 0x04034b50 + 100)).toBeNull();
  });

  it('leaves files with a plausible prefix alone', () => {
    const file = buildSafetensors([{ name: 'a', dtype: 'F32', shape: [2] }]);
    expect(sniffNotSafetensors(file, file.length)).toBeNull();
    expect(sniffNotSafetensors(file.subarray(0, 8), null)).toBeNull();
  });

  it('leaves unknown garbage to the length checks', () => {
    const garbage = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(sniffNotSafetensors(garbage, 1000)).toBeNull();
    expect(codesOf(parseFileHead(garbage, 1000))).toContain('header-too-large');
  });

  it('parseFileHead reports the sniffed kind instead of a length problem', () => {
    expect(codesOf(parseFileHead(LFS_POINTER, LFS_POINTER.length))).toEqual(['git-lfs-pointer']);
  });
});
