import { describe, expect, it } from 'vitest';
import { displayPath, hubCacheRefsOf, isHubCacheRefPath, refsOfPath } from './hub-cache';

const MAIN = '4e20de362430cd3b72f300e6b0f18e50e7166e08';
const repo = 'cache/hub/models--meta-llama--Llama-3.2-1B';

describe('the Hugging Face cache', () => {
  it('reads refs/main and refs/pr/N, main first, and ignores a ref that holds no commit', () => {
    expect(isHubCacheRefPath(`${repo}/refs/main`)).toBe(true);
    expect(isHubCacheRefPath(`${repo}/refs/refs/pr/3`)).toBe(true);
    // A file named refs/main inside a snapshot is one of the model's files.
    expect(isHubCacheRefPath(`${repo}/snapshots/${MAIN}/refs/main`)).toBe(false);
    expect(isHubCacheRefPath('refs/main')).toBe(false);
    const refs = hubCacheRefsOf([
      { path: `${repo}/refs/refs/pr/3`, text: MAIN },
      { path: `${repo}/refs/main`, text: `${MAIN}\n` },
      { path: `${repo}/refs/v2`, text: 'deadbeef' },
    ]);
    expect([...refs.entries()]).toEqual([[`${repo}/snapshots/${MAIN}/`, ['main', 'refs/pr/3']]]);
    expect(refsOfPath(`${repo}/snapshots/${MAIN}/model.safetensors`, refs)).toEqual(['main', 'refs/pr/3']);
    expect(refsOfPath(`${repo}/snapshots/${'1'.repeat(40)}/model.safetensors`, refs)).toEqual([]);
  });

  it('shows a snapshot as org/name@commit with the branches at it, the rest of the path kept', () => {
    const refs = hubCacheRefsOf([{ path: `${repo}/refs/main`, text: MAIN }]);
    expect(displayPath(`${repo}/snapshots/${MAIN}/original/consolidated.00.pth`, refs)).toBe(
      'meta-llama/Llama-3.2-1B@4e20de3 (main)/original/consolidated.00.pth',
    );
    expect(displayPath(`${repo}/snapshots/${MAIN}/model.safetensors`)).toBe(
      'meta-llama/Llama-3.2-1B@4e20de3/model.safetensors',
    );
    expect(displayPath('models/model.safetensors', refs)).toBe('models/model.safetensors');
  });
});
