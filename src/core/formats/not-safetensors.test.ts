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
    // whisper.cpp's ggml-base.en.bin: 'ggml' as a little-endian uint32, then the hyperparameters.
    ['legacy-ggml', withSize(new Uint8Array([0x6c, 0x6d, 0x67, 0x67, 0x33, 0xc3, 0x00, 0x00]), 147_951_465)],
    // llama.cpp's last pre-GGUF files: 'ggjt' version 3.
    ['legacy-ggml', withSize(new Uint8Array([0x74, 0x6a, 0x67, 0x67, 0x03, 0x00, 0x00, 0x00, 0x00, 0x7d]), 3.8e9)],
    ['hdf5-file', withSize(new Uint8Array([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]), 1e6)],
    ['numpy-array', withSize(new Uint8Array([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00]), 1e6)],
    ['tflite-model', withSize(new Uint8Array([0x1c, 0x00, 0x00, 0x00, 0x54, 0x46, 0x4c, 0x33, 0x00, 0x00]), 1e6)],
    // torch.onnx.export: ir_version 8, producer_name "pytorch", producer_version "2.1.0".
    ['onnx-model', withSize(text('\x08\x08\x12\x07pytorch\x1a\x052.1.0'), 1e6)],
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

  it('names what a file of another model format is, and what reads it', () => {
    const first = (bytes: number[]) => sniffNotSafetensors(new Uint8Array(bytes), 1e9)?.message ?? '';
    expect(first([0x74, 0x6a, 0x67, 0x67, 0x03, 0x00, 0x00, 0x00])).toContain(
      "a GGML model in llama.cpp's format from before GGUF (magic “ggjt”, version 3)",
    );
    expect(first([0x6c, 0x6d, 0x67, 0x67, 0x33, 0xc3, 0x00, 0x00])).toContain('whisper.cpp loads it as it is');
    expect(first([0x61, 0x6c, 0x67, 0x67, 0x01, 0x00, 0x00, 0x00])).toContain('an old llama.cpp LoRA adapter');
    expect(sniffNotSafetensors(text('\x08\x08\x12\x07pytorch\x1a\x05'), 1e6)?.message).toContain(
      'IR version 8, producer “pytorch”',
    );
    // A protobuf that does not open as a ModelProto is not called ONNX.
    expect(sniffNotSafetensors(text('\x08\x08\x12\x07pyt\x01rch'), 1e6)?.code).not.toBe('onnx-model');
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
