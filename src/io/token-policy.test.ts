import { describe, expect, it } from 'vitest';
import { isHuggingFaceUrl, mayReceiveToken } from './token-policy';

describe('mayReceiveToken', () => {
  it.each([
    'https://huggingface.co/org/name/resolve/main/model.safetensors',
    'https://hf.co/org/name/resolve/main/model.safetensors',
    'https://HuggingFace.co/org/name',
    'https://huggingface.co:443/org/name',
    'https://huggingface.co',
  ])('allows %s', (url) => {
    expect(mayReceiveToken(url)).toBe(true);
  });

  it.each([
    // Plain http: the token would cross the network in clear.
    'http://huggingface.co/org/name/resolve/main/model.safetensors',
    'http://hf.co/x',
    // Lookalike hosts.
    'https://huggingface.co.evil.com/org/name',
    'https://evil.com/huggingface.co/org/name',
    'https://evil.com/?u=https://huggingface.co',
    'https://evilhuggingface.co/x',
    'https://huggingface.com/x',
    'https://huggingface.co./x',
    'https://xn--huggingface-xyz.co/x',
    'https://evil.com#huggingface.co',
    'https://huggingface.co@evil.com/x',
    'https://user:pass@huggingface.co/x',
    'https://huggingface.co:8443/x',
    // Hub CDNs get presigned URLs, never the token.
    'https://cdn-lfs.hf.co/repos/x',
    'https://cas-bridge.xethub.hf.co/xet-bridge-us/x',
    'https://www.huggingface.co/x',
    // Other schemes and junk.
    'ws://huggingface.co/x',
    'javascript:alert(1)//huggingface.co',
    'huggingface.co/org/name',
    '',
    'not a url',
  ])('refuses %s', (url) => {
    expect(mayReceiveToken(url)).toBe(false);
  });
});

describe('isHuggingFaceUrl', () => {
  it('recognizes Hub hosts over either scheme, and nothing else', () => {
    expect(isHuggingFaceUrl('http://huggingface.co/x')).toBe(true);
    expect(isHuggingFaceUrl('https://www.hf.co/x')).toBe(true);
    expect(isHuggingFaceUrl('https://huggingface.co.evil.com/x')).toBe(false);
    expect(isHuggingFaceUrl('nope')).toBe(false);
  });
});
