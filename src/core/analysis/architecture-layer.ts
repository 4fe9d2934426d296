/**
 * Module widths for the architecture analysis: a layer's modules searched by name shape, and the output width of a
 * Linear whatever its storage (plain, Conv1D, GPTQ/AWQ, bitsandbytes, HQQ, quanto, MLX, FP8, NVFP4, EXL3), and
 * which layer of a hybrid stack holds its attention.
 */
import { MAX_LAYERS_SEARCHED_FOR_ATTENTION } from './analysis-limits';
import { shapeFlags, type StackScan } from './architecture-stack';
import { isHighPrecisionFloat } from './quant/quant-types';
import { rowsOfShapes, type TensorIndex } from './tensor-index';
import { decodeNumbers, isRecord, parseJsonBytes } from './values';

/** Tensor-name endings that hold a module's (possibly packed) weight; the module path is what precedes them. */
const WEIGHT_SUFFIXES = [
  // A PeftModel's whole state_dict keeps a wrapped layer's own weight here, its LoRA factors beside it.
  '.base_layer.weight',
  '.weight',
  '.qweight',
  '.weight_packed',
  '.q_weight',
  '.trellis',
  '.W_q',
  '.weight._data',
  '._weight_qdata',
  '.weight:qdata',
  '.B',
];

export function stripWeightSuffix(name: string): string {
  for (const suffix of WEIGHT_SUFFIXES) {
    if (name.endsWith(suffix)) {
      return name.slice(0, name.length - suffix.length);
    }
  }
  return name;
}

/**
 * The modules and tensors of one layer, searched by name pattern. A MoE layer holds thousands of expert tensors
 * but a dozen name shapes, and every pattern used here matches literal segments only, so each pattern is tested
 * once per shape. The answer is the one a scan of the layer's rows in header order gives: the first row whose
 * name (or module path) matches.
 */
export class LayerModules {
  /** Distinct shapes of the layer's rows, each with its first row, in order of that row. */
  private readonly firsts: Array<{ shape: number; row: number; module: string | null }> = [];

  constructor(
    private readonly index: TensorIndex,
    rows: ArrayLike<number>,
  ) {
    const shapes = index.shapes();
    const seen = new Uint8Array(shapes.count);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const shape = shapes.rowShape[row];
      if (seen[shape] === 0) {
        seen[shape] = 1;
        const text = shapes.text[shape];
        const module = stripWeightSuffix(text);
        this.firsts.push({ shape, row, module: module === text ? null : module });
      }
    }
  }

  /** Module path (name minus its weight suffix) of the first row whose module path matches. */
  findModule(pattern: RegExp): string | null {
    for (const first of this.firsts) {
      if (first.module !== null && pattern.test(first.module)) {
        return stripWeightSuffix(this.index.names[first.row]);
      }
    }
    return null;
  }

  /** First row whose name matches, or -1. */
  findTensor(pattern: RegExp): number {
    const text = this.index.shapes().text;
    return this.firsts.find((first) => pattern.test(text[first.shape]))?.row ?? -1;
  }
}

/** transformers' Conv1D modules (GPT-2 and its kin), which store their weight [in, out]. */
const CONV1D_MODULE = /(?:^|\.)(?:c_attn|c_proj|c_fc|q_attn)$/;

/**
 * Output width of a Linear whatever its storage: plain [out, in] (or GPT-2 Conv1D [in, out], told apart by its module
 * name and which side equals hidden_size), GPTQ/AWQ via scales cols, MLX/FP8/NVFP4/compressed-tensors via rows.
 */
export function outFeatures(
  index: TensorIndex,
  module: string,
  hidden: number | null,
  tensorBytes?: ReadonlyMap<number, Uint8Array>,
): number | null {
  const scales = index.row(`${module}.scales`);
  if (index.has(`${module}.qweight`) && scales >= 0 && index.rank(scales) === 2) {
    return index.dim(scales, 1);
  }
  // Formats that keep the original shape in a tiny tensor the quantization analysis already fetched.
  if (tensorBytes) {
    for (const suffix of ['.weight.quant_state.bitsandbytes__nf4', '.weight.quant_state.bitsandbytes__fp4']) {
      const state = parseJsonBytes(tensorBytes.get(index.row(module + suffix)));
      if (isRecord(state) && Array.isArray(state.shape) && typeof state.shape[0] === 'number') {
        return state.shape[0];
      }
    }
    const hqqShape = index.row(`${module}.shape`);
    if (hqqShape >= 0 && index.has(`${module}.W_q`)) {
      const bytes = tensorBytes.get(hqqShape);
      const dims = bytes ? decodeNumbers(index.dtype(hqqShape), bytes, 2) : null;
      if (dims && dims.length === 2) {
        return dims[0];
      }
    }
  }
  const quanto = index.row(`${module}.weight._data`);
  if (quanto >= 0 && index.dtype(quanto) !== 'U8' && index.rank(quanto) >= 2) {
    return index.dim(quanto, -2);
  }
  for (const suffix of ['.weight_packed', '.weight:qdata', '._weight_qdata']) {
    const row = index.row(module + suffix);
    if (row >= 0 && index.rank(row) >= 2) {
      return index.dim(row, -2);
    }
  }
  const qWeight = index.row(`${module}.q_weight`);
  if (qWeight >= 0) {
    return index.dim(qWeight, 1);
  }
  const trellis = index.row(`${module}.trellis`);
  if (trellis >= 0) {
    return index.dim(trellis, 1) * 16;
  }
  const plain = index.row(`${module}.weight`);
  const weight = plain >= 0 ? plain : index.row(`${module}.base_layer.weight`);
  if (weight < 0 || index.rank(weight) < 2) {
    return null;
  }
  if (index.dim(weight, -1) === 1 && index.has(`${module}.weight.absmax`)) {
    return null; // bitsandbytes 4-bit: flattened, the shape lives in the quant_state JSON.
  }
  const rows = index.dim(weight, -2);
  const cols = index.dim(weight, -1);
  // Every other layer is [out, in], even one whose input is wider than the model (Zamba2's shared attention reads
  // 2 × hidden).
  if (
    hidden !== null &&
    cols !== hidden &&
    rows === hidden &&
    CONV1D_MODULE.test(module) &&
    isHighPrecisionFloat(index.dtype(weight))
  ) {
    return cols;
  }
  return rows;
}

export function attentionWidths(
  index: TensorIndex,
  modules: LayerModules,
  hidden: number | null,
  bytes: ReadonlyMap<number, Uint8Array>,
): { q: number; kv: number; evidence: string; fused: boolean; qModule: string | null } | null {
  // llama.cpp's GGUF names put the projection in one part: blk.N.attn_q, attn_k, attn_qkv. DeBERTa's fused
  // projection is `attention.self.in_proj` (Mamba's `mixer.in_proj` is no attention).
  const fused = modules.findModule(
    /(?:^|\.)(?:attn|attention|self_attn|self_attention|mixer)\.(?:qkv_proj|c_attn|query_key_value|Wqkv|W_pack|qkv)$|(?:^|\.)attn_qkv$|(?:^|\.)attention\.self\.in_proj$/,
  );
  if (fused && hidden !== null) {
    const out = outFeatures(index, fused, hidden, bytes);
    if (out !== null && out > hidden) {
      const kv = (out - hidden) / 2;
      return {
        q: hidden,
        kv,
        evidence: `fused ${lastPart(fused)} width ${out} = q ${hidden} + 2 × kv ${kv} (q width assumed = hidden_size)`,
        fused: true,
        qModule: null,
      };
    }
  }
  // BERT's kin spell the parent `attention.self` (DeBERTa its projections `query_proj`), RecurrentGemma
  // `temporal_block`, Nemotron-H `mixer`.
  const q = modules.findModule(
    /(?:^|\.)(?:self_attn|attn|attention|attention\.self|SelfAttention|self_attention|mixer|temporal_block)\.(?:q_proj|wq|query|q|to_q|q_lin|query_proj)$|(?:^|\.)attn_q$/,
  );
  const k = modules.findModule(
    /(?:^|\.)(?:self_attn|attn|attention|attention\.self|SelfAttention|self_attention|mixer|temporal_block)\.(?:k_proj|wk|key|k|to_k|k_lin|key_proj)$|(?:^|\.)attn_k$/,
  );
  if (!q || !k) {
    return null;
  }
  const qOut = outFeatures(index, q, hidden, bytes);
  const kOut = outFeatures(index, k, hidden, bytes);
  if (qOut === null || kOut === null) {
    return null;
  }
  return {
    q: qOut,
    kv: kOut,
    evidence: `${lastPart(q)} width ${qOut}, ${lastPart(k)} width ${kOut}`,
    fused: false,
    qModule: q,
  };
}

function lastPart(module: string): string {
  return module.split('.').slice(-2).join('.');
}

export function findDenseMlp(
  index: TensorIndex,
  inStack: Uint8Array,
  indices: readonly number[],
  hidden: number | null,
  bytes: ReadonlyMap<number, Uint8Array>,
): { size: number; module: string } | null {
  // llama.cpp's GGUF names: blk.N.ffn_gate, ffn_up (the experts' are ffn_gate_exps, left out). BART's, Whisper's and
  // OPT's fc1 sits on the layer itself, BERT's kin's input projection is `intermediate.dense`, DistilBERT's `ffn.lin1`,
  // ALBERT's `ffn`, wav2vec2's `feed_forward.intermediate_dense`; ModernBERT's `mlp.Wi` holds the gate and the input.
  const pattern =
    /(?:^|\.)(?:mlp|feed_forward|ffn|DenseReluDense|mlp_block)\.(?:gate_proj|up_proj|w1|w3|fc1|c_fc|dense_h_to_4h|gate_up_proj|wi|wi_0|fc_in|lin1|intermediate_dense|Wi)$|(?:^|\.)(?:ffn_gate|ffn_up)$|\.#\.(?:fc1|ffn)$|(?:^|\.)intermediate\.dense$/;
  // Which shapes are candidates (not an expert, a weight of a dense MLP input projection) is a per-shape question.
  const shapes = index.shapes();
  const candidate = shapeFlags(shapes, (text, shape) => {
    const module = stripWeightSuffix(text);
    return inStack[shape] === 1 && !text.includes('expert') && module !== text && pattern.test(module);
  });
  if (!candidate.includes(1)) {
    return null;
  }
  // Candidate rows by layer (in `indices` order), each layer's in header order: the candidate shapes' own rows,
  // not a pass over every row (on an MoE model nearly all of them are experts).
  const candidateShapes: number[] = [];
  candidate.forEach((flag, s) => flag === 1 && candidateShapes.push(s));
  const candidateRows = rowsOfShapes(shapes, candidateShapes);
  const byLayer = new Map<number, number[]>();
  for (const row of candidateRows) {
    const layer = shapes.indexValues[shapes.indexStart[row]];
    const rows = byLayer.get(layer);
    if (rows) {
      rows.push(row);
    } else {
      byLayer.set(layer, [row]);
    }
  }
  for (const layer of indices) {
    for (const row of byLayer.get(layer) ?? []) {
      const module = stripWeightSuffix(index.names[row]);
      const out = outFeatures(index, module, hidden, bytes);
      if (out !== null) {
        const fused = module.endsWith('gate_up_proj') || module.endsWith('.mlp.Wi');
        return { size: fused ? out / 2 : out, module: lastPart(module) };
      }
    }
  }
  return null;
}

/**
 * The first layer that holds attention, and its modules: the representative layer when it has attention, else the
 * first of the next layers that does (Jamba, Granite 4.0-H, Qwen3-Next and LFM2 start with Mamba, linear-attention
 * or convolution layers).
 */
export function firstAttentionLayer(
  index: TensorIndex,
  bytes: ReadonlyMap<number, Uint8Array>,
  stack: Pick<StackScan, 'rowsOf'>,
  indices: readonly number[],
  first: LayerModules,
  hiddenSize: number | null,
): { layer: number | undefined; modules: LayerModules } {
  const hasAttention = (modules: LayerModules) =>
    modules.findModule(MLA_KV_A) !== null || attentionWidths(index, modules, hiddenSize, bytes) !== null;
  if (!hasAttention(first)) {
    for (const layer of indices.slice(1, MAX_LAYERS_SEARCHED_FOR_ATTENTION)) {
      const modules = new LayerModules(index, stack.rowsOf(layer));
      if (hasAttention(modules)) {
        return { layer, modules };
      }
    }
  }
  return { layer: indices[0], modules: first };
}

/** MLA's joint KV down-projection; llama.cpp's GGUF names it attn_kv_a_mqa. */
export const MLA_KV_A = /(?:^|\.)(?:kv_a_proj_with_mqa|attn_kv_a_mqa)$/;

/**
 * Families whose q_proj also yields a sigmoid gate for the attention output, one per query element (transformers'
 * Qwen3-Next and Qwen3.5 attention: `query_states, gate = torch.chunk(q_proj(x), 2)`): twice the query rows.
 */
const GATED_QUERY_FAMILIES = new Set(['qwen3_next', 'qwen3_5', 'qwen3_5_text', 'qwen3_5_moe', 'qwen3_5_moe_text']);

/** The query width without the output gate a gated family's q_proj carries (config.json says the family). */
export function withoutQueryGate<T extends { q: number }>(
  widths: T,
  config: { modelType: string | null; heads: number | null; headDim: number | null } | null,
  evidence: string[],
): T {
  const gated =
    config !== null &&
    GATED_QUERY_FAMILIES.has(config.modelType ?? '') &&
    config.heads !== null &&
    config.headDim !== null &&
    widths.q === 2 * config.heads * config.headDim;
  if (!gated) {
    return widths;
  }
  evidence.push(
    `q_proj width ${widths.q} holds the queries and their output gate (${config.modelType}): ${widths.q / 2} query rows`,
  );
  return { ...widths, q: widths.q / 2 };
}
