import { describe, expect, it } from 'vitest';
import { READABLE_FORMATS } from '../../core/formats/format-readers';
import { formatName, pickableFiles, readableFormatsPhrase } from './format-names';

describe('format names', () => {
  it('name every registered format with its usual endings, checkpoints included', () => {
    const phrase = readableFormatsPhrase();
    for (const format of READABLE_FORMATS) {
      expect(phrase).toContain(formatName(format));
    }
    expect(phrase.startsWith('safetensors (.safetensors, .sft)')).toBe(true);
    expect(phrase).toContain('PyTorch checkpoint (.bin, .pt, .pth, .ckpt, .pkl, .metadata)');
  });

  it('join three formats as a list, and a label without endings alone', () => {
    const three = [
      { label: 'a', extensions: ['.a'] },
      { label: 'b', extensions: [] },
      { label: 'c', extensions: ['.c', '.cc'] },
    ];
    expect(readableFormatsPhrase(three)).toBe('a (.a), b or c (.c, .cc)');
  });

  it('offer every ending to the file picker, once', () => {
    const accept = pickableFiles().split(',');
    for (const ending of ['.safetensors', '.sft', '.bin', '.pt', '.pth', '.ckpt', '.pkl', '.json']) {
      expect(accept).toContain(ending);
    }
    expect(new Set(accept).size).toBe(accept.length);
    expect(accept.at(-1)).toBe('application/octet-stream');
  });
});
