import { describe, expect, it } from 'vitest';
import { configUrlBeside } from './config-beside';

describe('configUrlBeside', () => {
  it('points at config.json in the same folder and revision of a Hub file or index', () => {
    expect(configUrlBeside('https://huggingface.co/org/name/resolve/main/model.safetensors')).toBe(
      'https://huggingface.co/org/name/resolve/main/config.json',
    );
    expect(
      configUrlBeside(
        'https://huggingface.co/org/name/resolve/v1.0/transformer/model.safetensors.index.json?download=1',
      ),
    ).toBe('https://huggingface.co/org/name/resolve/v1.0/transformer/config.json');
    // The fake Hub of the e2e servers has the same shape under /hub/.
    expect(configUrlBeside('http://127.0.0.1:8080/hub/lens-e2e/tiny/resolve/main/model.safetensors')).toBe(
      'http://127.0.0.1:8080/hub/lens-e2e/tiny/resolve/main/config.json',
    );
  });

  it('does not guess on other servers or on odd URLs', () => {
    expect(configUrlBeside('https://example.com/models/model.safetensors')).toBeNull();
    expect(configUrlBeside('https://huggingface.co/resolve/main/model.safetensors')).toBeNull();
    expect(configUrlBeside('https://huggingface.co/org/name/resolve/main/config.json')).toBeNull();
    expect(configUrlBeside('not a url')).toBeNull();
  });
});
