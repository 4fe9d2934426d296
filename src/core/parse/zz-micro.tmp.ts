import { buildHeaderBytes, type TensorSpec } from '../testing/build-safetensors';
const tensors: TensorSpec[] = [];
for (let l = 0; l < 93; l++)
  for (let e = 0; e < 896; e++)
    for (const p of ['gate_proj', 'up_proj', 'down_proj'])
      tensors.push({ name: `model.layers.${l}.mlp.experts.${e}.${p}.weight`, dtype: 'BF16', shape: [2048, 7168] });
const { head } = buildHeaderBytes(tensors);
const hb = head.subarray(8);
function countQuotes(b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < b.length; i++) if (b[i] === 0x22) n++;
  return n;
}
const T = new Uint8Array(256);
for (let c = 0x20; c < 0x80; c++) T[c] = c === 0x22 || c === 0x5c ? 0 : 1;
function tableScan(b: Uint8Array): number {
  let n = 0;
  const lim = b.length;
  for (let i = 0; i < lim; i++) {
    if (T[b[i]] === 0) n++;
  }
  return n;
}
function hashAll(b: Uint8Array, out: Uint8Array): number {
  let h = 0x811c9dc5 | 0;
  const lim = b.length;
  for (let i = 0; i < lim; i++) {
    const c = b[i];
    out[i] = c;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h;
}
const out = new Uint8Array(hb.length);
for (let r = 0; r < 5; r++) {
  let t = performance.now();
  countQuotes(hb);
  const a = performance.now() - t;
  t = performance.now();
  tableScan(hb);
  const b = performance.now() - t;
  t = performance.now();
  hashAll(hb, out);
  const c = performance.now() - t;
  t = performance.now();
  new TextDecoder().decode(hb);
  const d = performance.now() - t;
  console.log(hb.length, a.toFixed(1), b.toFixed(1), c.toFixed(1), 'decode', d.toFixed(1));
}
