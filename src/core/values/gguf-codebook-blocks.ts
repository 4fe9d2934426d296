/**
 * ggml's codebook quant types, IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS and IQ3_S, dequantized as llama.cpp's
 * `dequantize_row_iq*` do (block structs in ggml-common.h). Each stores, per group of 8 (IQ1, IQ2) or 4 (IQ3)
 * weights, an index into a fixed table of points, a sign per weight (IQ2, IQ3) or one shift per group (IQ1), and
 * small scales per 16 or 32 weights under one float16 `d` per 256. The tables are data every llama.cpp build
 * carries; `ggml-iq-grids.json` holds them (scripts/ggml-iq-grids.py writes it from gguf-py). A block is 256
 * elements; multi-byte fields sit at even offsets but are read with byte math like the other block types.
 */
import grids from './ggml-iq-grids.json';
import { halfAt as f16, halfToFloat } from '../bytes/half-float';

export type CodebookType = 'IQ2_XXS' | 'IQ2_XS' | 'IQ2_S' | 'IQ3_XXS' | 'IQ3_S' | 'IQ1_S' | 'IQ1_M';

export const CODEBOOK_BLOCKS: Readonly<Record<CodebookType, { bytes: number; elements: number }>> = {
  IQ2_XXS: { bytes: 66, elements: 256 },
  IQ2_XS: { bytes: 74, elements: 256 },
  IQ2_S: { bytes: 82, elements: 256 },
  IQ3_XXS: { bytes: 98, elements: 256 },
  IQ3_S: { bytes: 110, elements: 256 },
  IQ1_S: { bytes: 50, elements: 256 },
  IQ1_M: { bytes: 56, elements: 256 },
};

type GridName = keyof typeof grids.grids;

/** IQ1_S and IQ1_M add ±1/8 to every point of a group (ggml's IQ1S_DELTA and IQ1M_DELTA). */
const IQ1_DELTA = 0.125;

/**
 * The sign patterns IQ2_XXS, IQ2_XS and IQ3_XXS index with 7 bits: the eighth sign is whatever makes the count of
 * minus signs even (ggml's ksigns_iq2xs), so it costs no bit.
 */
const EVEN_SIGNS = Uint8Array.from({ length: 128 }, (_, i) => {
  let ones = 0;
  for (let bit = i; bit > 0; bit >>= 1) {
    ones += bit & 1;
  }
  return i | ((ones & 1) << 7);
});

const expanded = new Map<GridName, Float32Array>();

/** A table's points, `width` values each, expanded once from the packed positions in its level list. */
function gridOf(name: GridName): Float32Array {
  const known = expanded.get(name);
  if (known) {
    return known;
  }
  const { points, width, levels, bitsPerPoint, packed } = grids.grids[name];
  const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
  const perByte = 8 / bitsPerPoint;
  const mask = (1 << bitsPerPoint) - 1;
  const values = new Float32Array(points * width);
  for (let i = 0; i < values.length; i++) {
    values[i] = levels[(bytes[Math.floor(i / perByte)] >> (bitsPerPoint * (i % perByte))) & mask];
  }
  expanded.set(name, values);
  return values;
}

function u16(bytes: Uint8Array, at: number): number {
  return bytes[at] | (bytes[at + 1] << 8);
}

function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

/** Eight outputs at `o`: `scale` · point `index` of `grid` (width 8), negated where bit j of `signs` is set. */
function signedGroup(grid: Float32Array, index: number, signs: number, scale: number, out: Float32Array, o: number) {
  const base = index * 8;
  for (let j = 0; j < 8; j++) {
    const v = scale * grid[base + j];
    out[o + j] = signs & (1 << j) ? -v : v;
  }
}

type BlockDecoder = (bytes: Uint8Array, at: number, out: Float32Array, o: number) => void;

const DECODERS: Readonly<Record<CodebookType, BlockDecoder>> = {
  IQ2_XXS: iq2xxs,
  IQ2_XS: iq2xs,
  IQ2_S: iq2s,
  IQ3_XXS: iq3xxs,
  IQ3_S: iq3s,
  IQ1_S: iq1s,
  IQ1_M: iq1m,
};

/** Dequantizes one 256-element block of `type` at `at` into `out` from `o`. */
export function decodeCodebookBlock(type: CodebookType, bytes: Uint8Array, at: number, out: Float32Array, o: number) {
  DECODERS[type](bytes, at, out, o);
}

/**
 * IQ2_XXS: d · qs u16[32]. Each 32 elements read 8 bytes: four grid indices (a byte each), then a u32 with four
 * 7-bit sign patterns (bits 7l) and a 4-bit scale on top; x = d · (0.5 + scale) / 4 · point · sign.
 */
function iq2xxs(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const grid = gridOf('IQ2_XXS');
  const d = f16(bytes, at);
  for (let ib = 0; ib < 8; ib++) {
    const q = at + 2 + 8 * ib;
    const aux = u32(bytes, q + 4);
    const db = Math.fround(d * (0.5 + (aux >>> 28)) * 0.25);
    for (let l = 0; l < 4; l++) {
      signedGroup(grid, bytes[q + l], EVEN_SIGNS[(aux >>> (7 * l)) & 127], db, out, o + 32 * ib + 8 * l);
    }
  }
}

/**
 * IQ2_XS: d · qs u16[32] · scales[8]. Each u16 is a 9-bit grid index and a 7-bit sign pattern; each 16 elements
 * take a 4-bit scale (low nibble first): x = d · (0.5 + scale) / 4 · point · sign.
 */
function iq2xs(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const grid = gridOf('IQ2_XS');
  const d = f16(bytes, at);
  for (let g = 0; g < 32; g++) {
    const q = u16(bytes, at + 2 + 2 * g);
    const scale = (bytes[at + 66 + (g >> 2)] >> (4 * ((g >> 1) & 1))) & 15;
    signedGroup(grid, q & 511, EVEN_SIGNS[q >> 9], Math.fround(d * (0.5 + scale) * 0.25), out, o + 8 * g);
  }
}

/**
 * IQ2_S: d · qs[32] · signs[32] · qh[8] · scales[8]. Group g's 10-bit index is qs[g] with two bits of qh[g / 4] on
 * top, its eight signs are the bits of signs[g] (no parity trick), and its 4-bit scale is IQ2_XS's.
 */
function iq2s(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const grid = gridOf('IQ2_S');
  const d = f16(bytes, at);
  for (let g = 0; g < 32; g++) {
    const index = bytes[at + 2 + g] | (((bytes[at + 66 + (g >> 2)] >> (2 * (g & 3))) & 3) << 8);
    const scale = (bytes[at + 74 + (g >> 2)] >> (4 * ((g >> 1) & 1))) & 15;
    signedGroup(grid, index, bytes[at + 34 + g], Math.fround(d * (0.5 + scale) * 0.25), out, o + 8 * g);
  }
}

/** Four outputs at `o`: `scale` · point `index` of `grid` (width 4), negated by bits `shift`…`shift + 3` of `signs`. */
function signedQuad(
  grid: Float32Array,
  index: number,
  signs: number,
  shift: number,
  scale: number,
  out: Float32Array,
  o: number,
) {
  const base = index * 4;
  for (let j = 0; j < 4; j++) {
    const v = scale * grid[base + j];
    out[o + j] = signs & (1 << (shift + j)) ? -v : v;
  }
}

/**
 * IQ3_XXS: d · qs[64] (one 8-bit index of a 4-point entry each) · u32[8]. Each 32 elements' u32 holds four 7-bit sign
 * patterns (IQ2_XXS's, one per 8 elements) and a 4-bit scale on top: x = d · (0.5 + scale) / 2 · point · sign.
 */
function iq3xxs(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const grid = gridOf('IQ3_XXS');
  const d = f16(bytes, at);
  for (let ib = 0; ib < 8; ib++) {
    const aux = u32(bytes, at + 66 + 4 * ib);
    const db = Math.fround(d * (0.5 + (aux >>> 28)) * 0.5);
    for (let l = 0; l < 4; l++) {
      const signs = EVEN_SIGNS[(aux >>> (7 * l)) & 127];
      const q = at + 2 + 8 * ib + 2 * l;
      const e = o + 32 * ib + 8 * l;
      signedQuad(grid, bytes[q], signs, 0, db, out, e);
      signedQuad(grid, bytes[q + 1], signs, 4, db, out, e + 4);
    }
  }
}

/**
 * IQ3_S: d · qs[64] · qh[8] · signs[32] · scales[4]. Entry g's 9-bit index is qs[g] with bit g % 8 of qh[g / 8] on
 * top; element e's sign is bit e % 8 of signs[e / 8]; each 32 elements take a 4-bit scale: x = d · (1 + 2·scale) ·
 * point · sign.
 */
function iq3s(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const grid = gridOf('IQ3_S');
  const d = f16(bytes, at);
  for (let ib = 0; ib < 8; ib++) {
    const db = Math.fround(d * (1 + 2 * ((bytes[at + 106 + (ib >> 1)] >> (4 * (ib & 1))) & 15)));
    for (let s = 4 * ib; s < 4 * ib + 4; s++) {
      const signs = bytes[at + 74 + s];
      for (let half = 0; half < 2; half++) {
        const g = 2 * s + half;
        const index = bytes[at + 2 + g] | (((bytes[at + 66 + (g >> 3)] >> (g & 7)) & 1) << 8);
        signedQuad(grid, index, signs, 4 * half, db, out, o + 4 * g);
      }
    }
  }
}

/** Eight outputs at `o`: `scale` · (point `index` of IQ1's grid + `delta`). */
function shiftedGroup(grid: Float32Array, index: number, delta: number, scale: number, out: Float32Array, o: number) {
  const base = index * 8;
  for (let j = 0; j < 8; j++) {
    out[o + j] = scale * Math.fround(grid[base + j] + delta);
  }
}

/**
 * IQ1_S: d · qs[32] · qh u16[8]. Each 32 elements' u16 holds four 3-bit index tops (bits 3l), a 3-bit scale (bits
 * 12–14) and the sign of the shift (bit 15): x = d · (2·scale + 1) · (point ± 1/8), points −1, 0 or 1.
 */
function iq1s(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const grid = gridOf('IQ1_S');
  const d = f16(bytes, at);
  for (let ib = 0; ib < 8; ib++) {
    const h = u16(bytes, at + 34 + 2 * ib);
    const dl = Math.fround(d * (2 * ((h >> 12) & 7) + 1));
    const delta = h & 0x8000 ? -IQ1_DELTA : IQ1_DELTA;
    for (let l = 0; l < 4; l++) {
      shiftedGroup(grid, bytes[at + 2 + 4 * ib + l] | (((h >> (3 * l)) & 7) << 8), delta, dl, out, o + 32 * ib + 8 * l);
    }
  }
}

/**
 * IQ1_M: qs[32] · qh[16] · scales u16[4], and no `d` field: its float16 is the top nibbles of the four scale words
 * (the first word's lowest). Group g's nibble of qh (low first) gives its index top (3 bits) and the sign of its shift
 * (bit 3); each 16 elements take a 3-bit scale, four per word: x = d · (2·scale + 1) · (point ± 1/8), IQ1_S's grid.
 */
function iq1m(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const grid = gridOf('IQ1_S');
  const words = [0, 1, 2, 3].map((k) => u16(bytes, at + 48 + 2 * k));
  const halfBits = (words[0] >> 12) | ((words[1] >> 12) << 4) | ((words[2] >> 12) << 8) | ((words[3] >> 12) << 12);
  const d = halfToFloat(halfBits);
  for (let g = 0; g < 32; g++) {
    const m = g >> 1;
    const dl = Math.fround(d * (2 * ((words[m >> 2] >> (3 * (m & 3))) & 7) + 1));
    const nibble = (bytes[at + 32 + (g >> 1)] >> (4 * (g & 1))) & 15;
    shiftedGroup(grid, bytes[at + g] | ((nibble & 7) << 8), nibble & 8 ? -IQ1_DELTA : IQ1_DELTA, dl, out, o + 8 * g);
  }
}
