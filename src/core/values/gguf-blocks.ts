/**
 * GGUF quant blocks dequantized as llama.cpp does (ggml `dequantize_row_*`, block structs in ggml-common.h; the Python
 * port is gguf-py's `gguf/quants.py`, which the tests compare against). A block covers 32 elements (QK = 32) or 256
 * (QK_K = 256, the K-quants and IQ4_XS, TQ1_0, TQ2_0), 64 (NVFP4, Q2_0) or 128 (Q1_0); every scale `d`/`dmin`/`m` is a
 * little-endian float16 but MXFP4's, a power-of-two exponent byte (E8M0), and NVFP4's, unsigned E4M3 bytes. Multi-byte
 * fields sit at odd offsets inside a block, so they are read with byte math, never a typed-array view. The codebook
 * types (IQ1_S/M, IQ2_*, IQ3_*) are in gguf-codebook-blocks.ts.
 */
import { halfAt as f16 } from '../bytes/half-float';
import type { DecodeUnit } from './decode';
import { CODEBOOK_BLOCKS, decodeCodebookBlock, type CodebookType } from './gguf-codebook-blocks';

export const GGUF_BLOCKS: Readonly<Record<string, DecodeUnit>> = {
  Q4_0: { bytes: 18, elements: 32 },
  Q4_1: { bytes: 20, elements: 32 },
  Q5_0: { bytes: 22, elements: 32 },
  Q5_1: { bytes: 24, elements: 32 },
  Q8_0: { bytes: 34, elements: 32 },
  Q2_K: { bytes: 84, elements: 256 },
  Q3_K: { bytes: 110, elements: 256 },
  Q4_K: { bytes: 144, elements: 256 },
  Q5_K: { bytes: 176, elements: 256 },
  Q6_K: { bytes: 210, elements: 256 },
  IQ4_NL: { bytes: 18, elements: 32 },
  IQ4_XS: { bytes: 136, elements: 256 },
  TQ1_0: { bytes: 54, elements: 256 },
  TQ2_0: { bytes: 66, elements: 256 },
  MXFP4: { bytes: 17, elements: 32 },
  NVFP4: { bytes: 36, elements: 64 },
  Q1_0: { bytes: 18, elements: 128 },
  Q2_0: { bytes: 18, elements: 64 },
  ...CODEBOOK_BLOCKS,
};

/** Q4_0's levels: x = d · (q − 8). */
const Q4_0_LEVELS = Int8Array.from({ length: 16 }, (_, q) => q - 8);

/** IQ4_NL's and IQ4_XS's 16 levels (ggml's kvalues_iq4nl): a non-uniform 4-bit grid fitted to weight distributions. */
const IQ4_LEVELS = Int8Array.of(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113);

/** MXFP4's E2M1 codes as ggml holds them (kvalues_mxfp4): twice the value, so the block scale is halved to match. */
const MXFP4_DOUBLED = Int8Array.of(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);

/** Dequantizes whole blocks of `type` from `bytes` into `out` (blocks × elements per block values). */
export function decodeGgufBlocks(type: string, bytes: Uint8Array, out: Float32Array): void {
  const unit = GGUF_BLOCKS[type];
  const blocks = Math.floor(bytes.length / unit.bytes);
  const codebook = type in CODEBOOK_BLOCKS ? (type as CodebookType) : null;
  for (let b = 0; b < blocks; b++) {
    const at = b * unit.bytes;
    const o = b * unit.elements;
    if (codebook !== null) {
      decodeCodebookBlock(codebook, bytes, at, out, o);
      continue;
    }
    switch (type) {
      case 'Q4_0':
        nibbleLevels(bytes, at + 2, out, o, f16(bytes, at), Q4_0_LEVELS);
        break;
      case 'Q4_1':
        q41(bytes, at, out, o);
        break;
      case 'Q5_0':
      case 'Q5_1':
        legacyFiveBit(bytes, at, out, o, type === 'Q5_1');
        break;
      case 'Q8_0': {
        const d = f16(bytes, at);
        for (let e = 0; e < 32; e++) {
          out[o + e] = d * ((bytes[at + 2 + e] << 24) >> 24);
        }
        break;
      }
      case 'Q2_K':
        q2k(bytes, at, out, o);
        break;
      case 'Q3_K':
        q3k(bytes, at, out, o);
        break;
      case 'Q4_K':
      case 'Q5_K':
        q45k(bytes, at, out, o, type === 'Q5_K');
        break;
      case 'Q6_K':
        q6k(bytes, at, out, o);
        break;
      case 'IQ4_NL':
        nibbleLevels(bytes, at + 2, out, o, f16(bytes, at), IQ4_LEVELS);
        break;
      case 'IQ4_XS':
        iq4xs(bytes, at, out, o);
        break;
      case 'TQ1_0':
        tq1(bytes, at, out, o);
        break;
      case 'TQ2_0':
        tq2(bytes, at, out, o);
        break;
      case 'NVFP4':
        nvfp4(bytes, at, out, o);
        break;
      case 'Q1_0':
        q10(bytes, at, out, o);
        break;
      case 'Q2_0':
        q20(bytes, at, out, o);
        break;
      case 'MXFP4':
        // ggml's E8M0 to float, halved: 2^(e − 128) for every e (e = 0 and 1 are subnormal floats, not zero).
        nibbleLevels(bytes, at + 1, out, o, 2 ** (bytes[at] - 128), MXFP4_DOUBLED);
        break;
    }
  }
}

/** Q4_1: d · m · qs[16], x = d·q + m, in Q4_0's nibble order (nibbleLevels). */
function q41(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const d = f16(bytes, at);
  const m = f16(bytes, at + 2);
  for (let e = 0; e < 16; e++) {
    out[o + e] = d * (bytes[at + 4 + e] & 15) + m;
    out[o + 16 + e] = d * (bytes[at + 4 + e] >> 4) + m;
  }
}

/** Q5_0 (x = d·(q − 16)) and Q5_1 (x = d·q + m): the Q4 nibble plus bit e of the little-endian u32 qh as bit 4. */
function legacyFiveBit(bytes: Uint8Array, at: number, out: Float32Array, o: number, withMin: boolean): void {
  const d = f16(bytes, at);
  const m = withMin ? f16(bytes, at + 2) : 0;
  const qhAt = at + (withMin ? 4 : 2);
  const qh = (bytes[qhAt] | (bytes[qhAt + 1] << 8) | (bytes[qhAt + 2] << 16) | (bytes[qhAt + 3] << 24)) >>> 0;
  const qs = qhAt + 4;
  for (let e = 0; e < 16; e++) {
    const lo = (bytes[qs + e] & 15) | (((qh >>> e) & 1) << 4);
    const hi = (bytes[qs + e] >> 4) | (((qh >>> (e + 16)) & 1) << 4);
    out[o + e] = withMin ? d * lo + m : d * (lo - 16);
    out[o + 16 + e] = withMin ? d * hi + m : d * (hi - 16);
  }
}

/** Q2_K: scales[16] · qs[64] · d · dmin; element 128h + 32k + l is bits 2k of qs[32h + l]. */
function q2k(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const d = f16(bytes, at + 80);
  const dmin = f16(bytes, at + 82);
  for (let h = 0; h < 2; h++) {
    for (let k = 0; k < 4; k++) {
      for (let l = 0; l < 32; l++) {
        const e = 128 * h + 32 * k + l;
        const s = bytes[at + (e >> 4)];
        const q = (bytes[at + 16 + 32 * h + l] >> (2 * k)) & 3;
        out[o + e] = Math.fround(d * (s & 15)) * q - Math.fround(dmin * (s >> 4));
      }
    }
  }
}

/** Q3_K: hmask[32] · qs[64] · scales[12] (16 six-bit scales) · d; a clear hmask bit subtracts 4. */
function q3k(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const d = f16(bytes, at + 108);
  const sc = at + 96;
  for (let h = 0; h < 2; h++) {
    for (let k = 0; k < 4; k++) {
      for (let l = 0; l < 32; l++) {
        const e = 128 * h + 32 * k + l;
        const j = e >> 4;
        const low = j < 8 ? bytes[sc + j] & 15 : bytes[sc + j - 8] >> 4;
        const high = (bytes[sc + 8 + (j % 4)] >> (2 * (j >> 2))) & 3;
        const scale = (low | (high << 4)) - 32;
        const hb = (bytes[at + l] >> (4 * h + k)) & 1;
        const q = ((bytes[at + 32 + 32 * h + l] >> (2 * k)) & 3) - (hb ? 0 : 4);
        out[o + e] = Math.fround(d * scale) * q;
      }
    }
  }
}

/** The six-bit scale and min of sub-block j of a Q4_K/Q5_K block (12 packed bytes at `sc`). */
function scaleMin(bytes: Uint8Array, sc: number, j: number): [number, number] {
  if (j < 4) {
    return [bytes[sc + j] & 63, bytes[sc + j + 4] & 63];
  }
  return [
    (bytes[sc + j + 4] & 15) | ((bytes[sc + j - 4] >> 6) << 4),
    (bytes[sc + j + 4] >> 4) | ((bytes[sc + j] >> 6) << 4),
  ];
}

/** Q4_K: d · dmin · scales[12] · qs[128]; Q5_K adds qh[32] before qs (bit j of qh[l] is bit 4 of sub-block j). */
function q45k(bytes: Uint8Array, at: number, out: Float32Array, o: number, fiveBit: boolean): void {
  const d = f16(bytes, at);
  const dmin = f16(bytes, at + 2);
  const qh = at + 16;
  const qs = at + (fiveBit ? 48 : 16);
  for (let j = 0; j < 8; j++) {
    const [sc, mn] = scaleMin(bytes, at + 4, j);
    const scale = Math.fround(d * sc);
    const min = Math.fround(dmin * mn);
    const c = j >> 1;
    for (let l = 0; l < 32; l++) {
      const byte = bytes[qs + 32 * c + l];
      let q = j & 1 ? byte >> 4 : byte & 15;
      if (fiveBit) {
        q |= ((bytes[qh + l] >> j) & 1) << 4;
      }
      out[o + 32 * j + l] = scale * q - min;
    }
  }
}

/** Q6_K: ql[128] · qh[64] · scales i8[16] · d; four 2-bit fields of qh[32h + l] carry the high bits. */
function q6k(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const d = f16(bytes, at + 208);
  for (let h = 0; h < 2; h++) {
    for (let l = 0; l < 32; l++) {
      const ql0 = bytes[at + 64 * h + l];
      const ql1 = bytes[at + 64 * h + 32 + l];
      const qh = bytes[at + 128 + 32 * h + l];
      const q = [
        (ql0 & 15) | ((qh & 3) << 4),
        (ql1 & 15) | (((qh >> 2) & 3) << 4),
        (ql0 >> 4) | (((qh >> 4) & 3) << 4),
        (ql1 >> 4) | (((qh >> 6) & 3) << 4),
      ];
      for (let part = 0; part < 4; part++) {
        const e = 128 * h + 32 * part + l;
        const scale = (bytes[at + 192 + (e >> 4)] << 24) >> 24;
        out[o + e] = Math.fround(d * scale) * (q[part] - 32);
      }
    }
  }
}

/**
 * 32 elements from 16 bytes at `qs` in Q4_0's order (element e < 16 in the low nibble of byte e, e ≥ 16 in the high
 * one), each `scale` · levels[q].
 */
function nibbleLevels(
  bytes: Uint8Array,
  qs: number,
  out: Float32Array,
  o: number,
  scale: number,
  levels: Int8Array,
): void {
  for (let e = 0; e < 16; e++) {
    out[o + e] = scale * levels[bytes[qs + e] & 15];
    out[o + 16 + e] = scale * levels[bytes[qs + e] >> 4];
  }
}

/**
 * IQ4_XS: d · scales_h u16 · scales_l[4] · qs[128]; sub-block j (32 elements, IQ4_NL's nibble order) has the 6-bit
 * scale ls = low nibble j of scales_l | 2 bits j of scales_h << 4, and x = d · (ls − 32) · level.
 */
function iq4xs(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const d = f16(bytes, at);
  const scalesH = bytes[at + 2] | (bytes[at + 3] << 8);
  for (let j = 0; j < 8; j++) {
    const low = (bytes[at + 4 + (j >> 1)] >> (4 * (j & 1))) & 15;
    const ls = low | (((scalesH >> (2 * j)) & 3) << 4);
    nibbleLevels(bytes, at + 8 + 16 * j, out, o + 32 * j, d * (ls - 32), IQ4_LEVELS);
  }
}

/** TQ2_0 (ternary): qs[64] · d; element 128h + 32k + l is bits 2k of qs[32h + l], as Q2_K's fields; x = d · (q − 1). */
function tq2(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const d = f16(bytes, at + 64);
  for (let h = 0; h < 2; h++) {
    for (let k = 0; k < 4; k++) {
      for (let l = 0; l < 32; l++) {
        out[o + 128 * h + 32 * k + l] = d * (((bytes[at + 32 * h + l] >> (2 * k)) & 3) - 1);
      }
    }
  }
}

/** Q1_0 (signs, PrismML's 1-bit models): d · qs[16]; bit e of the block is bit e % 8 of qs[e / 8]: x = set ? d : −d. */
function q10(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const d = f16(bytes, at);
  for (let i = 0; i < 16; i++) {
    const byte = bytes[at + 2 + i];
    for (let bit = 0; bit < 8; bit++) {
      out[o + 8 * i + bit] = (byte >> bit) & 1 ? d : -d;
    }
  }
}

/** Q2_0: d · qs[16]; element e is bits 2(e % 4) of qs[e / 4], x = d · (q − 1) (a ternary quantizer writes q ≤ 2). */
function q20(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const d = f16(bytes, at);
  for (let i = 0; i < 16; i++) {
    const byte = bytes[at + 2 + i];
    for (let k = 0; k < 4; k++) {
      out[o + 4 * i + k] = d * (((byte >> (2 * k)) & 3) - 1);
    }
  }
}

/**
 * TQ1_0 (ternary, five trits a byte): qs[48] · qh[4] · d. Trit k of byte v is ((v · 3^k mod 256) · 3) >> 8: bytes
 * 0–31 hold elements 32k + l, bytes 32–47 elements 160 + 16k + l, qh's four bytes (four trits each) 240 + 4k + l;
 * x = d · (trit − 1).
 */
function tq1(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  const d = f16(bytes, at + 52);
  const trit = (v: number, k: number) => ((((v * 3 ** k) & 255) * 3) >> 8) - 1;
  for (let k = 0; k < 5; k++) {
    for (let l = 0; l < 32; l++) {
      out[o + 32 * k + l] = d * trit(bytes[at + l], k);
    }
    for (let l = 0; l < 16; l++) {
      out[o + 160 + 16 * k + l] = d * trit(bytes[at + 32 + l], k);
    }
  }
  for (let k = 0; k < 4; k++) {
    for (let l = 0; l < 4; l++) {
      out[o + 240 + 4 * k + l] = d * trit(bytes[at + 48 + l], k);
    }
  }
}

/**
 * NVFP4: four unsigned E4M3 scales (bias 7, the top bit unused; 0 and 0x7F read as zero) · qs[32]; sub-block k holds
 * 16 elements in qs[8k..8k + 8], low nibbles first, each scale · E2M1 level (ggml's doubled levels, the scale halved).
 */
function nvfp4(bytes: Uint8Array, at: number, out: Float32Array, o: number): void {
  for (let k = 0; k < 4; k++) {
    const code = bytes[at + k];
    const exp = (code >> 3) & 15;
    const man = code & 7;
    const scale = code === 0 || code === 0x7f ? 0 : (exp === 0 ? man * 2 ** -9 : (1 + man / 8) * 2 ** (exp - 7)) * 0.5;
    const qs = at + 4 + 8 * k;
    for (let l = 0; l < 8; l++) {
      out[o + 16 * k + l] = scale * MXFP4_DOUBLED[bytes[qs + l] & 15];
      out[o + 16 * k + 8 + l] = scale * MXFP4_DOUBLED[bytes[qs + l] >> 4];
    }
  }
}
