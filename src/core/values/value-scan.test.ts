/** What the scan makes of the tensors it read: LoRA up factors that are all zeros, and outliers by role. */
import { describe, expect, it } from 'vitest';
import { scannedTensor } from '../../testing/scan-tensors';
import { summarizeScan, TensorScanAccumulator, type ScanTensor } from './value-scan';

/** A scanned tensor of 64 values, `zeros` of them zero. */
function scanned(tensor: string, zeros: number): ScanTensor {
  const dead = zeros === 64;
  return scannedTensor(tensor, { dtype: 'BF16', count: 64, zeros, absMax: dead ? 0 : 1, std: dead ? 0 : 0.5 });
}

function scan(perTensor: ScanTensor[]) {
  return summarizeScan(perTensor, { done: true, bytes: 0, skippedNames: [], ms: 1 });
}

describe('LoRA up factors in a value scan', () => {
  it('an adapter whose every up factor is zero (saved before training) is counted as such', () => {
    const modules = ['q_proj', 'v_proj'].map((projection) => `base_model.model.model.layers.0.self_attn.${projection}`);
    const result = scan(
      modules.flatMap((module) => [scanned(`${module}.lora_A.weight`, 0), scanned(`${module}.lora_B.weight`, 64)]),
    );
    expect(result.zeroUpFactors).toEqual({
      modules: 2,
      zero: 2,
      examples: modules.map((module) => `${module}.lora_B.weight`),
    });
  });

  it("counts every tool's up factor, and only the all-zero ones as zero", () => {
    const result = scan([
      scanned('lora_unet_down_blocks_0_attn1_to_q.lora_up.weight', 64),
      scanned('lora_unet_down_blocks_0_attn1_to_q.lora_down.weight', 64),
      scanned('double_blocks.0.processor.qkv_lora1.up.weight', 3),
      scanned('blk.0.attn_q.weight.lora_b', 0),
      scanned('model.layers.0.self_attn.q_proj.lora_b', 64),
    ]);
    expect(result.zeroUpFactors).toEqual({
      modules: 4,
      zero: 2,
      examples: ['lora_unet_down_blocks_0_attn1_to_q.lora_up.weight', 'model.layers.0.self_attn.q_proj.lora_b'],
    });
  });

  it('says nothing of a model without LoRA factors, zero tensors or not', () => {
    expect(
      scan([scanned('model.layers.0.mlp.up.weight', 64), scanned('model.norm.weight', 64)]).zeroUpFactors,
    ).toBeNull();
  });
});

describe('outliers against their role', () => {
  /** A scanned weight whose largest magnitude is `absMax`. */
  const weight = (tensor: string, absMax: number, row = 0): ScanTensor => scannedTensor(tensor, { absMax, row });

  it("Mixtral's w1, w2 and w3 are three roles: a down projection's larger values are not outliers among gates", () => {
    // Down projections (w2) run about twelve times the gate and up projections' magnitude in this model.
    const perTensor = [0, 1, 2, 3].flatMap((layer) =>
      [0, 1].flatMap((expert) => {
        const at = `model.layers.${layer}.block_sparse_moe.experts.${expert}`;
        return [weight(`${at}.w1.weight`, 0.05), weight(`${at}.w2.weight`, 0.6), weight(`${at}.w3.weight`, 0.05)];
      }),
    );
    expect(scan(perTensor).outliers).toEqual([]);
    // One down projection blown up to 9 stands out against the other down projections.
    perTensor[4] = weight('model.layers.1.block_sparse_moe.experts.1.w2.weight', 9, 4);
    expect(scan(perTensor).outliers).toEqual([
      { tensor: 'model.layers.1.block_sparse_moe.experts.1.w2.weight', row: 4, absMax: 9, roleMedian: 0.6, ratio: 15 },
    ]);
  });

  it("kohya's underscored block numbers still group a role across blocks", () => {
    const perTensor = [0, 1, 2, 3].map((block) =>
      weight(`lora_unet_down_blocks_${block}_attentions_0_transformer_blocks_0_attn1_to_q.lora_down.weight`, 0.1),
    );
    perTensor[2] = { ...perTensor[2], absMax: 5 };
    expect(scan(perTensor).outliers.map((outlier) => outlier.tensor)).toEqual([perTensor[2].tensor]);
  });
});

describe('where the scan finds NaN and infinities', () => {
  it('a BF16 tensor counted by code: the positions of the chunk that held them, in any chunk order', () => {
    // [512, 256] of 1.0 (0x3f80), past BF16's 65,536 codes: row 300 all NaN (0x7fc0), one -Inf (0xff80) at [7, 9].
    const rows = 512;
    const cols = 256;
    const codes = new Uint16Array(rows * cols).fill(0x3f80);
    codes.fill(0x7fc0, 300 * cols, 301 * cols);
    codes[7 * cols + 9] = 0xff80;
    const bytes = new Uint8Array(codes.buffer);
    const scan = new TensorScanAccumulator('BF16', rows * cols, [rows, cols]);
    const half = bytes.length / 2;
    scan.add(bytes.subarray(half), half / 2);
    scan.add(bytes.subarray(0, half), 0);
    const { stats, nonFinite } = scan.result();
    expect(stats).toMatchObject({ nan: cols, negInf: 1 });
    expect(nonFinite?.first[0]).toEqual({ element: 7 * cols + 9, at: [7, 9], kind: '−Inf' });
    expect(nonFinite?.first.slice(1).map(({ at }) => at)).toEqual(Array.from({ length: 19 }, (_, col) => [300, col]));
    expect(nonFinite).toMatchObject({ rows: 2, ofRows: rows });
  });

  it('a tensor dense with NaN: every row counted, the first positions exact, in pieces that split rows', () => {
    const rows = 64;
    const cols = 128;
    const values = new Float32Array(rows * cols).fill(0.25);
    const want: number[] = [];
    for (let r = 0; r < rows; r++) {
      for (const c of [(r * 7) % cols, 100, 101]) {
        values[r * cols + c] = r % 2 ? Number.NaN : Infinity;
        want.push(r * cols + c);
      }
    }
    const scan = new TensorScanAccumulator('F32', rows * cols, [rows, cols]);
    const bytes = new Uint8Array(values.buffer);
    // Pieces of 1,000 values, last first: rows split anywhere, positions found out of order.
    for (let start = Math.floor((values.length - 1) / 1000) * 1000; start >= 0; start -= 1000) {
      scan.add(bytes.subarray(start * 4, Math.min(values.length, start + 1000) * 4), start);
    }
    const { stats, nonFinite } = scan.result();
    expect(stats.nan + stats.posInf).toBe(new Set(want).size);
    const ascending = [...new Set(want)].sort((a, b) => a - b).slice(0, 20);
    expect(nonFinite?.first.map(({ element }) => element)).toEqual(ascending);
    expect(nonFinite).toMatchObject({ rows, ofRows: rows });
  });

  it('a finite tensor has none', () => {
    const scan = new TensorScanAccumulator('F32', 64, [8, 8]);
    scan.add(new Uint8Array(new Float32Array(64).fill(0.5).buffer), 0);
    expect(scan.result().nonFinite).toBeNull();
  });
});
