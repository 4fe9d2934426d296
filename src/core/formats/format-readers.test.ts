/**
 * The registry is the one place file endings, shard naming and the pickable files come from: these check what it
 * answers for each registered format, so a format's declaration reaches the drop zone, the pickers, the Hub
 * listing and the shard grouping alike.
 */
import { describe, expect, it } from 'vitest';
import {
  formatForFileName,
  isPickableFileName,
  READABLE_FORMATS,
  SHARD_NAMINGS,
  shardPatternFor,
} from './format-readers';

describe('the format registry', () => {
  it('names the format a file name claims by its ending', () => {
    expect(formatForFileName('model.safetensors')?.id).toBe('safetensors');
    expect(formatForFileName('MODEL.SFT')?.id).toBe('safetensors');
    expect(formatForFileName('dir/Llama-3-8B.Q4_K_M.gguf')?.id).toBe('gguf');
    expect(formatForFileName('pytorch_model.bin')?.id).toBe('pytorch');
    expect(formatForFileName('last.ckpt')?.id).toBe('pytorch');
    expect(formatForFileName('tokenizer.json')).toBeNull();
    expect(formatForFileName('README.md')).toBeNull();
  });

  it('picks model files and shard indexes, nothing else', () => {
    for (const name of [
      'a/model-00001-of-00002.safetensors',
      'model.safetensors.index.json',
      'pytorch_model.bin.index.json',
      'x-00001-of-00003.gguf',
      'weights.pt',
    ]) {
      expect(isPickableFileName(name), name).toBe(true);
    }
    for (const name of ['config.json', 'tokenizer.model', 'model.index.json', 'image.png', 'notes.txt']) {
      expect(isPickableFileName(name), name).toBe(false);
    }
  });

  it("gives each format's shard naming: an index for safetensors and .bin, siblings by name for GGUF", () => {
    expect(shardPatternFor('safetensors')).toEqual([
      expect.objectContaining({ extension: 'safetensors', indexSuffix: '.safetensors.index.json' }),
    ]);
    expect(shardPatternFor('pytorch')).toEqual([
      expect.objectContaining({ extension: 'bin', indexSuffix: '.bin.index.json' }),
    ]);
    expect(shardPatternFor('gguf')).toEqual([
      expect.objectContaining({ extension: 'gguf', separators: '-', digits: [5, 5], siblingsByName: true }),
    ]);
    expect(shardPatternFor('nope')).toEqual([]);
    expect(SHARD_NAMINGS.map((naming) => naming.extension)).toEqual(['safetensors', 'gguf', 'bin']);
  });

  it('offers every ending a format dispatches on or usually carries on the first screen', () => {
    const endings = READABLE_FORMATS.flatMap((format) => format.extensions);
    for (const ending of ['.safetensors', '.gguf', '.bin', '.pt']) {
      expect(endings).toContain(ending);
      expect(formatForFileName(`x${ending}`)).not.toBeNull();
    }
  });
});
