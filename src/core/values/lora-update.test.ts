import { describe, expect, it } from 'vitest';
import { NO_LORA_SCALING, type LoraScaling } from '../analysis/lora-scaling';
import { savedHeaderRecord } from '../../testing/saved-headers';
import { present } from '../../testing/values-fixtures';
import { productNorm, rankGram } from './lora-gram';
import { LoraUpdateCollector, planLoraUpdates, type LoraUpdates } from './lora-update';
import { MAX_LORA_UPDATE_WORK } from './values-limits';

const NO_SCALING = NO_LORA_SCALING;

/** A seeded generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32 - 0.5;
  };
}

interface Tensor {
  name: string;
  shape: number[];
  values: Float32Array;
}

function tensor(name: string, shape: number[], next: () => number): Tensor {
  return { name, shape, values: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, next) };
}

/** ‖up · down‖_F by forming the product: up as [out, r], down as [r, in], both row-major. */
function bruteNorm(up: Float32Array, down: Float32Array, out: number, rank: number, inFeatures: number): number {
  let sum = 0;
  for (let o = 0; o < out; o++) {
    for (let i = 0; i < inFeatures; i++) {
      let cell = 0;
      for (let k = 0; k < rank; k++) {
        cell += up[o * rank + k] * down[k * inFeatures + i];
      }
      sum += cell * cell;
    }
  }
  return Math.sqrt(sum);
}

function transposed(values: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(values.length);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      out[c * rows + r] = values[r * cols + c];
    }
  }
  return out;
}

/**
 * Runs the collector over the tensors as the scan would: file order, each in pieces of `piece` values; `reversed`
 * hands the pieces over last first with their element offsets, as parallel Range requests may answer.
 */
function collect(tensors: readonly Tensor[], scaling: LoraScaling, piece = 7, reversed = false): LoraUpdates | null {
  const plan = planLoraUpdates(
    tensors.map((t) => t.name),
    (row) => tensors[row].shape,
  );
  if (plan === null) {
    return null;
  }
  const collector = new LoraUpdateCollector(plan);
  tensors.forEach((t, row) => {
    if (!collector.wants(row)) {
      return;
    }
    const bytes = new Uint8Array(t.values.buffer);
    const starts = Array.from({ length: Math.ceil(t.values.length / piece) }, (_, i) => i * piece);
    for (const at of reversed ? starts.reverse() : starts) {
      const chunk = bytes.subarray(at * 4, Math.min(t.values.length, at + piece) * 4);
      collector.add(row, 'F32', chunk, reversed ? at : undefined);
    }
    collector.end(row);
  });
  return collector.result(scaling);
}

describe('rankGram and productNorm', () => {
  it('give ‖B·A‖_F without forming the product, rank vectors along rows or columns', () => {
    const next = random(7);
    const [out, rank, inFeatures] = [9, 3, 11];
    const down = tensor('d', [rank, inFeatures], next).values;
    const up = tensor('u', [out, rank], next).values;
    const norm = productNorm(
      rankGram(down, { rank, length: inFeatures, rankFirst: true }),
      rankGram(up, { rank, length: out, rankFirst: false }),
    );
    expect(norm).toBeCloseTo(bruteNorm(up, down, out, rank, inFeatures), 10);
  });
});

describe('LoraUpdateCollector', () => {
  it('measures PEFT modules with lora_alpha / r, rsLoRA and alpha_pattern', () => {
    const next = random(11);
    const q = 'base_model.model.model.layers.0.self_attn.q_proj';
    const v = 'base_model.model.model.layers.0.self_attn.v_proj';
    const tensors = [
      tensor(`${q}.lora_A.weight`, [4, 10], next),
      tensor(`${q}.lora_B.weight`, [6, 4], next),
      tensor(`${v}.lora_A.weight`, [4, 10], next),
      tensor(`${v}.lora_B.weight`, [8, 4], next),
    ];
    const qNorm = bruteNorm(tensors[1].values, tensors[0].values, 6, 4, 10);
    const vNorm = bruteNorm(tensors[3].values, tensors[2].values, 8, 4, 10);

    const plain = collect(tensors, { ...NO_SCALING, alpha: 16, alphaFrom: 'adapter_config.json lora_alpha' });
    expect(plain?.modules.map((m) => [m.module, m.target, m.rank, m.scale])).toEqual([
      [q, 'q_proj', 4, 4],
      [v, 'v_proj', 4, 4],
    ]);
    expect(plain?.modules[0].norm).toBeCloseTo(4 * qNorm, 9);
    expect(plain?.modules[1].norm).toBeCloseTo(4 * vNorm, 9);
    expect(plain?.modules[1].rms).toBeCloseTo((4 * vNorm) / Math.sqrt(8 * 10), 9);
    expect(plain?.modules[1]).toMatchObject({ outFeatures: 8, inFeatures: 10, scaleSource: 'declared alpha' });

    const rs = collect(tensors, { ...NO_SCALING, alpha: 16, rsLora: true, alphaPattern: [['self_attn.v_proj', 2]] });
    expect(rs?.modules[0]).toMatchObject({ scale: 8, alpha: 16, scaleSource: 'declared alpha' });
    expect(rs?.modules[1]).toMatchObject({ scale: 1, alpha: 2, scaleSource: 'alpha_pattern' });
    expect(rs?.modules[1].norm).toBeCloseTo(vNorm, 9);
  });

  it('reads kohya conv factors flattened, each module with its own .alpha, and 1 where none is stated', () => {
    const next = random(3);
    const conv = 'lora_unet_down_blocks_0_resnets_0_conv1';
    const linear = 'lora_te1_text_model_encoder_layers_0_mlp_fc1';
    const tensors = [
      { name: `${conv}.alpha`, shape: [], values: Float32Array.of(1) },
      tensor(`${conv}.lora_down.weight`, [2, 3, 3, 3], next),
      tensor(`${conv}.lora_up.weight`, [5, 2, 1, 1], next),
      tensor(`${linear}.lora_down.weight`, [2, 7], next),
      tensor(`${linear}.lora_up.weight`, [4, 2], next),
    ];
    const updates = collect(tensors, NO_SCALING, 5);
    expect(updates?.modules.map((m) => [m.target, m.scale, m.scaleSource, m.inFeatures])).toEqual([
      ['conv1', 0.5, 'alpha tensor', 27],
      ['mlp_fc1', 1, 'none (1 assumed)', 7],
    ]);
    expect(updates?.modules[0].norm).toBeCloseTo(0.5 * bruteNorm(tensors[2].values, tensors[1].values, 5, 2, 27), 9);
    expect(updates?.modules[1].norm).toBeCloseTo(bruteNorm(tensors[4].values, tensors[3].values, 4, 2, 7), 9);
    // The same pieces in reverse order, each placed by its offset: the same figures.
    expect(collect(tensors, NO_SCALING, 5, true)?.modules.map((m) => m.norm)).toEqual(
      updates?.modules.map((m) => m.norm),
    );
  });

  it("reads MLX's a [in, r] and b [r, out] with its fixed scale, and llama.cpp's transposed token_embd A", () => {
    const next = random(5);
    const mlx = [tensor('model.layers.0.self_attn.q_proj.lora_a', [10, 3], next)];
    mlx.push(tensor('model.layers.0.self_attn.q_proj.lora_b', [3, 6], next));
    const mlxUpdates = collect(mlx, { ...NO_SCALING, fixedScale: 20, alpha: 16 });
    // ΔW = scale · (a · b)ᵀ: the same norm as b ᵀ· aᵀ.
    const expected = bruteNorm(transposed(mlx[1].values, 3, 6), transposed(mlx[0].values, 10, 3), 6, 3, 10);
    expect(mlxUpdates?.modules[0]).toMatchObject({
      scale: 20,
      scaleSource: 'mlx scale',
      outFeatures: 6,
      inFeatures: 10,
    });
    expect(mlxUpdates?.modules[0].norm).toBeCloseTo(20 * expected, 9);

    const gguf = [
      tensor('blk.0.attn_q.weight.lora_a', [4, 12], next),
      tensor('blk.0.attn_q.weight.lora_b', [12, 4], next),
      tensor('token_embd.weight.lora_a', [50, 4], next),
      tensor('token_embd.weight.lora_b', [12, 4], next),
    ];
    const ggufUpdates = collect(gguf, { ...NO_SCALING, alpha: 8, alphaFrom: 'adapter.lora.alpha' });
    expect(ggufUpdates?.modules.map((m) => [m.target, m.scale, m.outFeatures, m.inFeatures])).toEqual([
      ['attn_q', 2, 12, 12],
      ['token_embd', 2, 12, 50],
    ]);
    const embd = bruteNorm(gguf[3].values, transposed(gguf[2].values, 50, 4), 12, 4, 50);
    expect(ggufUpdates?.modules[1].norm).toBeCloseTo(2 * embd, 9);
  });

  it('says why a module is not measured: a LoHa half missing, a lone factor, a factor never read', () => {
    const next = random(9);
    const tensors = [
      tensor('lora_unet_a.hada_w1_a', [4, 2], next),
      tensor('lora_unet_a.hada_w1_b', [2, 4], next),
      tensor('lora_unet_b.lora_down.weight', [2, 4], next),
      tensor('lora_unet_d.lora_down.weight', [2, 4], next),
      tensor('lora_unet_d.lora_up.weight', [3, 2], next),
    ];
    const plan = planLoraUpdates(
      tensors.map((t) => t.name),
      (row) => tensors[row].shape,
    );
    const collector = new LoraUpdateCollector(present(plan, 'plan'));
    // d's down factor is read whole, its up factor never: a scan cancelled, or a dtype not decoded.
    expect([collector.wants(3), collector.wants(4), collector.wants(2)]).toEqual([true, true, false]);
    collector.add(3, 'F32', new Uint8Array(tensors[3].values.buffer));
    collector.end(3);
    const updates = collector.result(NO_SCALING);
    expect(updates.modules).toEqual([]);
    expect(updates.unmeasuredExamples).toEqual([
      { module: 'lora_unet_a', reason: 'its hada_w2_a is missing' },
      { module: 'lora_unet_b', reason: 'one of its two factors is missing' },
      { module: 'lora_unet_d', reason: 'a factor was not read whole or is not decoded' },
    ]);
  });

  it('measures no module of an adapter whose Grams would take over the work bound, and says so', () => {
    // Rank 512 on 32 modules of 4,096 → 8,192: 32 · 12,288 · 512² / 2 multiply-adds.
    const names: string[] = [];
    const shapes: number[][] = [];
    for (let i = 0; i < 32; i++) {
      names.push(
        `base_model.model.layers.${i}.mlp.up_proj.lora_A.weight`,
        `base_model.model.layers.${i}.mlp.up_proj.lora_B.weight`,
      );
      shapes.push([512, 4096], [8192, 512]);
    }
    const work = (32 * 12288 * 512 * 512) / 2;
    expect(work).toBeGreaterThan(MAX_LORA_UPDATE_WORK);
    const plan = present(
      planLoraUpdates(names, (row) => shapes[row]),
      'plan',
    );
    expect(plan.modules).toEqual([]);
    expect(plan.factors.size).toBe(0);
    expect(plan.unmeasured).toHaveLength(32);
    expect(plan.unmeasured[0].reason).toBe(
      "the adapter's Gram matrices would take 52 billion multiply-adds, over the 20 billion the scan allows (about 10 s)",
    );
    // A quarter of the layers fit.
    expect(planLoraUpdates(names.slice(0, 16), (row) => shapes[row])?.modules).toHaveLength(8);
  });

  it('gives the spectral norm and stable rank: 1 for a rank-one update, the rank for orthonormal factors', () => {
    const next = random(13);
    const u = Float32Array.from({ length: 6 }, next);
    const v = Float32Array.from({ length: 5 }, next);
    // Rank 3 in shape, rank 1 in value: every column of B is a multiple of u, every row of A of v.
    const rankOne = collect(
      [
        {
          name: 'm.lora_A.weight',
          shape: [3, 5],
          values: Float32Array.from({ length: 15 }, (_, i) => v[i % 5] * (1 + ((i / 5) | 0))),
        },
        {
          name: 'm.lora_B.weight',
          shape: [6, 3],
          values: Float32Array.from({ length: 18 }, (_, i) => u[(i / 3) | 0] * (i % 3 === 0 ? 1 : -0.5)),
        },
      ],
      NO_SCALING,
    )?.modules[0];
    expect(rankOne?.stableRank).toBeCloseTo(1, 9);
    expect(rankOne?.spectralNorm).toBeCloseTo(present(rankOne).norm, 9);
    // A = [I 0], B = [I; 0] · 2: ΔW has four singular values of 2.
    const identity = (rows: number, cols: number, value: number) =>
      Float32Array.from({ length: rows * cols }, (_, i) => (((i / cols) | 0) === i % cols ? value : 0));
    const orthonormal = collect(
      [
        { name: 'm.lora_A.weight', shape: [4, 7], values: identity(4, 7, 1) },
        { name: 'm.lora_B.weight', shape: [9, 4], values: identity(9, 4, 2) },
      ],
      NO_SCALING,
    )?.modules[0];
    expect(orthonormal).toMatchObject({ norm: 4, spectralNorm: 2, stableRank: 4 });
  });

  it('gives nothing for a model without adapter factors, and flags DoRA', () => {
    expect(planLoraUpdates(['model.embed_tokens.weight'], () => [4, 4])).toBeNull();
    const next = random(1);
    const m = 'base_model.model.layers.0.q_proj';
    const updates = collect(
      [
        tensor(`${m}.lora_A.weight`, [2, 3], next),
        tensor(`${m}.lora_B.weight`, [3, 2], next),
        tensor(`${m}.lora_magnitude_vector`, [3], next),
      ],
      NO_SCALING,
    );
    expect(updates?.dora).toBe(true);
    expect(updates?.modules).toHaveLength(1);
  });
});

describe('the adapters PEFT saved that B·A does not describe', () => {
  it("leaves PEFT's packed-expert LoRA, its IA³ and AdaLoRA unmeasured, saying why (names and shapes PEFT saved)", () => {
    const measured: Record<string, string[]> = { 'lora-target-parameters': ['q_proj', 'q_proj'], ia3: [], adalora: [] };
    const unmeasuredCount: Record<string, number> = { 'lora-target-parameters': 4, ia3: 6, adalora: 4 };
    for (const [fixture, reason] of [
      ['lora-target-parameters', "a LoRA on packed expert parameters (PEFT's target_parameters) stacks every expert's"],
      ['ia3', "PEFT's IA³, OFT, BOFT and VeRA modules scale or rotate the weight instead of adding B·A"],
      ['adalora', "AdaLoRA's update is B · diag(E) · A"],
    ] as const) {
      const { header } = savedHeaderRecord<{ header: Record<string, { shape: number[] }> }>('peft-adapters', fixture);
      const names = Object.keys(header).filter((name) => name !== '__metadata__');
      const plan = present(
        planLoraUpdates(names, (row) => header[names[row]].shape),
        'plan',
      );
      const unmeasured = plan.unmeasured.filter(({ reason: why }) => why.startsWith(reason));
      expect(unmeasured.length, fixture).toBe(unmeasuredCount[fixture]);
      // The q_proj LoRA beside the experts' is measured as usual.
      expect(plan.modules.map(({ target }) => target)).toEqual(measured[fixture]);
    }
  });
});

describe('PEFT 0.2’s merged layout (wujindou/BLOOM-LORA’s shapes)', () => {
  it('leaves the grouped Conv1d lora_B unmeasured, saying why', () => {
    const module = 'base_model.model.transformer.h.0.self_attention.query_key_value';
    const shapes: Record<string, number[]> = {
      [`${module}.lora_A.weight`]: [16, 1024],
      [`${module}.lora_B.weight`]: [2048, 8, 1],
    };
    const names = Object.keys(shapes);
    const plan = present(
      planLoraUpdates(names, (row) => shapes[names[row]]),
      'plan',
    );
    expect(plan.modules).toEqual([]);
    expect(plan.unmeasured.map(({ reason }) => reason)).toEqual([
      "PEFT 0.2's merged layout: lora_B is a grouped Conv1d, one rank-r block per fused projection: not measured",
    ]);
  });
});
