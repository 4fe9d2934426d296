import { parseFileHead } from './parse-header';
import { previewEntries } from './prefix-preview';
import { buildSafetensors } from '../testing/build-safetensors';
import { FINDING_CODES } from '../findings/codes';
const base = buildSafetensors(
  [
    { name: 'model.embed_tokens.weight', dtype: 'BF16', shape: [8, 4] },
    { name: 'x\u00e9', dtype: 'F8_E4M3', shape: [4, 4] },
    { name: 's', dtype: 'F32', shape: [] },
    { name: 'packed', dtype: 'F4', shape: [2, 6] },
    { name: 'dup', dtype: 'I64', shape: [0, 3] },
  ],
  { metadata: { format: 'pt', n: 'q"\\' } },
);
const headerEnd = 8 + Number(new DataView(base.buffer).getBigUint64(0, true));
let seed = Number(process.argv[2] ?? 1);
const rnd = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const PUNCT = '{}[],:"\\0123456789-.eE tfnu'
  .split('')
  .map((c) => c.charCodeAt(0))
  .concat([0, 0x80, 0xc3, 0xff, 0xed, 0xef]);
let parsed = 0,
  rejected = 0;
const codes = new Map<string, number>();
for (let i = 0; i < 200000; i++) {
  let f = base.slice();
  const n = 1 + Math.floor(rnd() * 5);
  for (let k = 0; k < n; k++) {
    const at = 8 + Math.floor(rnd() * (headerEnd - 8));
    const r = rnd();
    if (r < 0.3) f[at] ^= 1 << Math.floor(rnd() * 8);
    else if (r < 0.6) f[at] = PUNCT[Math.floor(rnd() * PUNCT.length)];
    else if (r < 0.75)
      f = new Uint8Array([...f.subarray(0, at), PUNCT[Math.floor(rnd() * PUNCT.length)], ...f.subarray(at)]);
    else if (r < 0.9) f = new Uint8Array([...f.subarray(0, at), ...f.subarray(at + 1 + Math.floor(rnd() * 4))]);
    else f = f.slice(0, Math.floor(rnd() * f.length));
  }
  try {
    const o = parseFileHead(f, rnd() < 0.8 ? f.length : null);
    const fs = o.kind === 'parsed' ? o.header.findings : o.file.findings;
    if (o.kind === 'parsed') parsed++;
    else rejected++;
    for (const x of fs) {
      codes.set(x.code, (codes.get(x.code) ?? 0) + 1);
      if (!FINDING_CODES[x.code]) throw new Error('bad code');
      if (o.kind === 'parsed' && x.tensors.some((t) => t < 0 || t >= o.header.tensors.count))
        throw new Error('bad row');
    }
    if (f.length > 8) previewEntries(f.subarray(8, 8 + Math.floor(rnd() * f.length)), 3);
  } catch (e) {
    console.log('THROW', i, e, JSON.stringify(new TextDecoder().decode(f.subarray(8, 600))));
    process.exit(1);
  }
}
console.log(
  { parsed, rejected },
  [...codes].sort((a, b) => b[1] - a[1]),
);
