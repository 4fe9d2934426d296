import { describe, expect, it } from 'vitest';
import { normalizeSourceUrl, type HubRepo, type NormalizedSourceUrl } from './hub';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const FILE = 'https://huggingface.co/org/name/resolve/main/model.safetensors';

/** `repo` without `base`: every Hub link resolves against https://huggingface.co (checked below). */
type Row = [input: string, expected: Omit<Partial<NormalizedSourceUrl>, 'repo'> & { repo?: Partial<HubRepo> }];

/** Every Hub link form that names a file, and the one resolve URL it must become. */
const FILE_LINKS: Row[] = [
  // Hosts and schemes.
  ['https://huggingface.co/org/name/resolve/main/model.safetensors', { url: FILE, kind: 'hf-file' }],
  ['http://huggingface.co/org/name/resolve/main/model.safetensors', { url: FILE }],
  ['huggingface.co/org/name/resolve/main/model.safetensors', { url: FILE }],
  ['www.huggingface.co/org/name/blob/main/model.safetensors', { url: FILE }],
  ['https://www.huggingface.co/org/name/blob/main/model.safetensors', { url: FILE }],
  ['https://hf.co/org/name/blob/main/model.safetensors', { url: FILE }],
  ['hf.co/org/name/resolve/main/model.safetensors', { url: FILE }],
  ['HTTPS://HuggingFace.CO/org/name/resolve/main/model.safetensors', { url: FILE }],
  ['//huggingface.co/org/name/resolve/main/model.safetensors', { url: FILE }],
  ['  https://huggingface.co/org/name/resolve/main/model.safetensors \n', { url: FILE }],
  // blob / raw / resolve, queries and fragments dropped.
  ['https://huggingface.co/org/name/blob/main/model.safetensors', { url: FILE }],
  ['https://huggingface.co/org/name/raw/main/model.safetensors', { url: FILE }],
  ['https://huggingface.co/org/name/resolve/main/model.safetensors?download=true', { url: FILE }],
  ['https://huggingface.co/org/name/blob/main/model.safetensors#L1', { url: FILE }],
  ['org/name/blob/main/model.safetensors', { url: FILE }],
  // Revisions.
  [
    'https://huggingface.co/org/name/blob/v1.0/model.safetensors',
    {
      url: 'https://huggingface.co/org/name/resolve/v1.0/model.safetensors',
      repo: { type: 'model', id: 'org/name', revision: 'v1.0', path: 'model.safetensors' },
      display: 'org/name/model.safetensors @ v1.0',
    },
  ],
  [
    `https://huggingface.co/org/name/resolve/${SHA}/model.safetensors`,
    {
      url: `https://huggingface.co/org/name/resolve/${SHA}/model.safetensors`,
      display: 'org/name/model.safetensors @ 0123456',
    },
  ],
  [
    'https://huggingface.co/org/name/resolve/refs%2Fpr%2F3/model.safetensors',
    {
      url: 'https://huggingface.co/org/name/resolve/refs%2Fpr%2F3/model.safetensors',
      repo: { type: 'model', id: 'org/name', revision: 'refs/pr/3', path: 'model.safetensors' },
    },
  ],
  [
    'https://huggingface.co/org/name/blob/refs/pr/12/sub/model.safetensors',
    {
      url: 'https://huggingface.co/org/name/resolve/refs%2Fpr%2F12/sub/model.safetensors',
      repo: { type: 'model', id: 'org/name', revision: 'refs/pr/12', path: 'sub/model.safetensors' },
    },
  ],
  [
    'https://huggingface.co/datasets/org/data/blob/refs%2Fconvert%2Fparquet/x.safetensors',
    { url: 'https://huggingface.co/datasets/org/data/resolve/refs%2Fconvert%2Fparquet/x.safetensors' },
  ],
  [
    'https://huggingface.co/org/name/blob/feature%2Fbranch/model.safetensors',
    {
      url: 'https://huggingface.co/org/name/resolve/feature%2Fbranch/model.safetensors',
      repo: { type: 'model', id: 'org/name', revision: 'feature/branch', path: 'model.safetensors' },
    },
  ],
  // Subfolders and encoding.
  [
    'https://huggingface.co/org/name/blob/main/transformer/diffusion_pytorch_model-00001-of-00003.safetensors',
    {
      url: 'https://huggingface.co/org/name/resolve/main/transformer/diffusion_pytorch_model-00001-of-00003.safetensors',
      repo: {
        type: 'model',
        id: 'org/name',
        revision: 'main',
        path: 'transformer/diffusion_pytorch_model-00001-of-00003.safetensors',
      },
    },
  ],
  [
    'https://huggingface.co/org/name/blob/main/my model+v2 (final)#1.safetensors',
    // `#` starts a fragment when pasted unencoded, so the file name ends before it.
    { url: 'https://huggingface.co/org/name/resolve/main/my%20model%2Bv2%20(final)' },
  ],
  [
    'https://huggingface.co/org/name/blob/main/my%20model%2Bv2%20%23final.safetensors',
    {
      url: 'https://huggingface.co/org/name/resolve/main/my%20model%2Bv2%20%23final.safetensors',
      repo: { type: 'model', id: 'org/name', revision: 'main', path: 'my model+v2 #final.safetensors' },
    },
  ],
  [
    'https://huggingface.co/org/name/blob/main/dir%2Fmodel.safetensors',
    { url: 'https://huggingface.co/org/name/resolve/main/dir/model.safetensors' },
  ],
  [
    'https://huggingface.co/org/name/blob/main/ünïcode/模型.safetensors',
    {
      url: 'https://huggingface.co/org/name/resolve/main/%C3%BCn%C3%AFcode/%E6%A8%A1%E5%9E%8B.safetensors',
      repo: { type: 'model', id: 'org/name', revision: 'main', path: 'ünïcode/模型.safetensors' },
    },
  ],
  // Repo types and legacy ids.
  [
    'https://huggingface.co/datasets/org/data/blob/main/weights/x.safetensors',
    {
      url: 'https://huggingface.co/datasets/org/data/resolve/main/weights/x.safetensors',
      repo: { type: 'dataset', id: 'org/data', revision: 'main', path: 'weights/x.safetensors' },
      display: 'datasets/org/data/weights/x.safetensors',
    },
  ],
  [
    'https://huggingface.co/spaces/org/app/blob/main/x.safetensors',
    {
      url: 'https://huggingface.co/spaces/org/app/resolve/main/x.safetensors',
      repo: { type: 'space', id: 'org/app', revision: 'main', path: 'x.safetensors' },
    },
  ],
  [
    'https://huggingface.co/gpt2/resolve/main/model.safetensors',
    {
      url: 'https://huggingface.co/gpt2/resolve/main/model.safetensors',
      repo: { type: 'model', id: 'gpt2', revision: 'main', path: 'model.safetensors' },
    },
  ],
  [
    'https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/model-00001-of-00004.safetensors',
    { url: 'https://huggingface.co/meta-llama/Llama-3.1-8B/resolve/main/model-00001-of-00004.safetensors' },
  ],
  // Model page with ?show_file_info=.
  [
    'https://huggingface.co/org/name?show_file_info=model.safetensors',
    { url: FILE, kind: 'hf-file', display: 'org/name/model.safetensors' },
  ],
  [
    'https://huggingface.co/org/name?show_file_info=transformer%2Fdiffusion_pytorch_model.safetensors',
    { url: 'https://huggingface.co/org/name/resolve/main/transformer/diffusion_pytorch_model.safetensors' },
  ],
  [
    'https://huggingface.co/org/name?show_file_info=model.safetensors.index.json',
    { url: 'https://huggingface.co/org/name/resolve/main/model.safetensors.index.json', kind: 'hf-index' },
  ],
  [
    'https://huggingface.co/datasets/org/data?show_file_info=a/b.safetensors',
    { url: 'https://huggingface.co/datasets/org/data/resolve/main/a/b.safetensors' },
  ],
  // Index files.
  [
    'https://huggingface.co/org/name/blob/main/model.safetensors.index.json',
    { url: 'https://huggingface.co/org/name/resolve/main/model.safetensors.index.json', kind: 'hf-index' },
  ],
  [
    'org/name/blob/main/unet/diffusion_pytorch_model.safetensors.index.json',
    {
      kind: 'hf-index',
      repo: {
        type: 'model',
        id: 'org/name',
        revision: 'main',
        path: 'unet/diffusion_pytorch_model.safetensors.index.json',
      },
    },
  ],
];

/** Links that name a repository (optionally a revision and subfolder), not a file. */
const REPO_LINKS: Row[] = [
  [
    'org/name',
    {
      kind: 'hf-repo',
      url: 'https://huggingface.co/org/name/tree/main',
      repo: { type: 'model', id: 'org/name', revision: 'main' },
      display: 'org/name',
    },
  ],
  ['https://huggingface.co/org/name', { kind: 'hf-repo', repo: { type: 'model', id: 'org/name', revision: 'main' } }],
  ['hf.co/org/name/', { kind: 'hf-repo', url: 'https://huggingface.co/org/name/tree/main' }],
  ['gpt2', { kind: 'hf-repo', repo: { type: 'model', id: 'gpt2', revision: 'main' } }],
  [
    'datasets/org/data',
    {
      kind: 'hf-repo',
      url: 'https://huggingface.co/datasets/org/data/tree/main',
      repo: { type: 'dataset', id: 'org/data', revision: 'main' },
    },
  ],
  [
    'https://huggingface.co/org/name/tree/main/transformer',
    {
      kind: 'hf-repo',
      url: 'https://huggingface.co/org/name/tree/main/transformer',
      repo: { type: 'model', id: 'org/name', revision: 'main', path: 'transformer' },
    },
  ],
  [
    'https://huggingface.co/org/name/tree/refs%2Fpr%2F5/sub/dir',
    {
      kind: 'hf-repo',
      url: 'https://huggingface.co/org/name/tree/refs%2Fpr%2F5/sub/dir',
      repo: { type: 'model', id: 'org/name', revision: 'refs/pr/5', path: 'sub/dir' },
      display: 'org/name/sub/dir @ refs/pr/5',
    },
  ],
  [
    'https://huggingface.co/org/name/tree/v2',
    { kind: 'hf-repo', repo: { type: 'model', id: 'org/name', revision: 'v2' } },
  ],
  [
    'https://huggingface.co/org/name/tree',
    { kind: 'hf-repo', repo: { type: 'model', id: 'org/name', revision: 'main' } },
  ],
  [
    `https://huggingface.co/org/name/commit/${SHA}`,
    { kind: 'hf-repo', repo: { type: 'model', id: 'org/name', revision: SHA } },
  ],
  [
    'https://huggingface.co/org/name/discussions/7',
    { kind: 'hf-repo', repo: { type: 'model', id: 'org/name', revision: 'main' } },
  ],
  ['https://huggingface.co/org/name/tree/main?show_file_info=model.safetensors', { kind: 'hf-file', url: FILE }],
];

/** Non-Hub http(s) URLs pass through (WHATWG-normalized only). */
const GENERIC_LINKS: Row[] = [
  [
    'https://example.com/models/x.safetensors',
    { kind: 'generic', url: 'https://example.com/models/x.safetensors', display: 'example.com/models/x.safetensors' },
  ],
  ['http://127.0.0.1:4601/range/x.safetensors', { kind: 'generic', url: 'http://127.0.0.1:4601/range/x.safetensors' }],
  ['localhost/x.safetensors', { kind: 'generic', url: 'http://localhost/x.safetensors' }],
  ['example.com/x.safetensors?sig=abc', { kind: 'generic', url: 'https://example.com/x.safetensors?sig=abc' }],
  [
    'https://cdn-lfs.hf.co/repos/aa/bb/cc?X-Amz-Expires=3600',
    { kind: 'generic', url: 'https://cdn-lfs.hf.co/repos/aa/bb/cc?X-Amz-Expires=3600' },
  ],
  ['https://cas-bridge.xethub.hf.co/xet-bridge-us/abc', { kind: 'generic' }],
  [
    'https://huggingface.co.evil.com/org/name/resolve/main/x.safetensors',
    { kind: 'generic', url: 'https://huggingface.co.evil.com/org/name/resolve/main/x.safetensors' },
  ],
  ['https://evil.com/huggingface.co/org/name/resolve/main/x.safetensors', { kind: 'generic' }],
  ['https://huggingface.co:8443/org/name/resolve/main/x.safetensors', { kind: 'generic' }],
  [
    'https://huggingface.co/api/resolve-cache/models/org/name/abc/x.safetensors?etag=1',
    { kind: 'generic', url: 'https://huggingface.co/api/resolve-cache/models/org/name/abc/x.safetensors?etag=1' },
  ],
  [
    'https://example.com/a b.safetensors',
    { kind: 'generic', url: 'https://example.com/a%20b.safetensors', display: 'example.com/a b.safetensors' },
  ],
];

/** Refused input and a fragment of the message that explains why. */
const REFUSED: Array<[input: string, message: RegExp]> = [
  ['', /empty/],
  ['   ', /empty/],
  ['javascript:alert(1)', /Only http:\/\/ and https:\/\/.*javascript:/],
  ['JavaScript:alert(1)', /javascript:/],
  ['data:application/octet-stream;base64,AAAA', /data:/],
  ['file:///home/me/model.safetensors', /file:.*drop it on the page/],
  ['blob:https://example.com/1234-5678', /blob:.*drop it on the page/],
  ['ftp://example.com/x.safetensors', /ftp:/],
  ['vbscript:msgbox', /vbscript:/],
  ['https://user:pass@huggingface.co/org/name/resolve/main/x.safetensors', /user name or password/],
  ['https://token@example.com/x.safetensors', /user name or password/],
  ['http://user:pw@example.com/x', /user name or password/],
  ['localhost:8080/x.safetensors', /Add http:\/\/ or https:\/\//],
  ['model.safetensors', /looks like a file name/],
  ['model.safetensors.index.json', /looks like a file name/],
  ['Llama-3-8B.Q4_K_M.gguf', /looks like a file name/],
  ['https://huggingface.co/', /home page/],
  ['https://huggingface.co/docs/hub/index', /site page/],
  ['https://huggingface.co/models?search=llama', /site page/],
  ['https://huggingface.co/datasets', /lists dataset repositories/],
  ['https://huggingface.co/org/name/resolve/main', /no file/],
  ['https://huggingface.co/org/name/blob/main/', /no file/],
  ['https://huggingface.co/org/name/resolve/main/%E0%A4%A', /broken %-escape/],
  ['https://huggingface.co/org/name/resolve/main/a/%2E%2E%2Fsecret', /“\.” or “\.\.”/],
  ['https://huggingface.co/org/name/resolve/refs/pr/abc/x.safetensors', /pull-request revision/],
  ['https://huggingface.co/org/na%20me/resolve/main/x.safetensors', /not a valid Hugging Face repository name/],
  ['https://huggingface.co/org/name/resolve/..%2Fx/x.safetensors', /not a valid revision/],
  ['https://exa mple.com/x', /not a valid address/],
  ['https://example.com/x\u0000y', /control characters/],
  ['https://example.com/x\ny', /control characters/],
  [`https://example.com/${'a'.repeat(9000)}`, /longer than/],
];

describe('normalizeSourceUrl', () => {
  it.each(FILE_LINKS)('file link %s', (input, expected) => {
    const result = normalizeSourceUrl(input);
    expect(result).toMatchObject({ kind: 'hf-file', ...expected });
  });

  it.each(REPO_LINKS)('repo link %s', (input, expected) => {
    expect(normalizeSourceUrl(input)).toMatchObject(expected);
  });

  it.each(GENERIC_LINKS)('generic %s', (input, expected) => {
    const result = normalizeSourceUrl(input);
    expect(result).toMatchObject(expected);
    expect(result).not.toHaveProperty('repo');
  });

  it.each(REFUSED)('refuses %j', (input, message) => {
    const result = normalizeSourceUrl(input);
    expect(result).toHaveProperty('error');
    expect((result as { error: string }).error).toMatch(message);
  });

  it('always produces an https huggingface.co resolve URL for Hub files, with exact repo fields', () => {
    for (const [input] of FILE_LINKS) {
      const result = normalizeSourceUrl(input);
      if ('error' in result) {
        throw new Error(`${input}: ${result.error}`);
      }
      expect(result.url.startsWith('https://huggingface.co/')).toBe(true);
      expect(result.url).toContain('/resolve/');
      expect(result.repo).toBeDefined();
      // Round trip: normalizing the normalized URL changes nothing.
      expect(normalizeSourceUrl(result.url)).toEqual(result);
    }
  });

  it('keeps the full repo reference for a plain file link', () => {
    expect(normalizeSourceUrl('https://huggingface.co/org/name/blob/main/model.safetensors')).toEqual({
      url: FILE,
      kind: 'hf-file',
      repo: {
        base: 'https://huggingface.co',
        type: 'model',
        id: 'org/name',
        revision: 'main',
        path: 'model.safetensors',
      },
      display: 'org/name/model.safetensors',
    });
  });
});
