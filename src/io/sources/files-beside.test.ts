import { describe, expect, it } from 'vitest';
import { memoryReader } from '../../testing/fuzz/memory-reader';
import { filesBeside } from './files-beside';

describe('filesBeside', () => {
  it('opens a bare name once, and never a path, a URL, a parent or a hidden file', () => {
    const asked: string[] = [];
    const open = filesBeside((name) => {
      asked.push(name);
      return memoryReader(new Uint8Array(4), 'local');
    });
    expect(open('__0_0.distcp')).not.toBeNull();
    expect(open('__0_0.distcp')).toBe(open('__0_0.distcp'));
    for (const hostile of [
      '../model.safetensors',
      'a/b.distcp',
      'https://evil.example/x',
      '..',
      '.metadata',
      'a\\b',
      '',
    ]) {
      expect(open(hostile), hostile).toBeNull();
    }
    expect(asked).toEqual(['__0_0.distcp']);
  });
});
