/**
 * The KV layout the header alone pins down, when no config.json came with the file: attention layers are those
 * with a `k_proj` (or an MLA `kv_a_proj_with_mqa`), and the per-token width is read straight from the projection's
 * output features: k_proj out + v_proj out = 2 × kv heads × head dim, without needing to split heads from head dim.
 * Sliding windows and linear-attention state are invisible in a header, so the result is labelled a guess.
 */
import { analyzeArchitecture } from '../architecture';
import { ENCODER_STACK_PREFIX } from '../architecture-stack';
import { groupDigits } from '../../number-format';
import type { AnalysisInput } from '../analysis-types';
import type { TensorIndex } from '../tensor-index';
import { partOfName } from './weights';
import type { CrossAttentionCache, KvLayerGroup, KvModel } from './memory-types';

/** Dtypes whose `[out, in]` shape is the real matrix shape (packed integer containers are not). */
const PLAIN_MATRIX = /^(F16|BF16|F32|F64|F8_E4M3|F8_E5M2|F8_E4M3FNUZ|F8_E5M2FNUZ|I8)$/;

/**
 * An encoder-decoder's encoder stack (BART's and Whisper's `model.encoder.layers.N`, T5's `encoder.block.N`): it reads
 * its whole input at once and caches nothing.
 */
const ENCODER_SEGMENT = /(?:^|\.)encoder\./;

/**
 * A layer's attention to something other than earlier tokens: an encoder's output (BART's and Whisper's
 * `encoder_attn`, T5's `EncDecAttention`) or an image (Llama 3.2 Vision's `cross_attn`, sized only from config.json).
 */
const CROSS_ATTENTION = /\.(?:encoder_attn|EncDecAttention|cross_attn)\./;

/** Whisper's audio front end: an encoder behind it always sees 30 s of padded audio, all its positions. */
const AUDIO_FRONT_END = /^(?:model\.)?encoder\.conv1\.weight$/;

/** The encoder's learnt positions, one row each. */
const ENCODER_POSITIONS = /^(?:model\.)?encoder\.embed_positions\.weight$/;

/**
 * Output features of a projection per layer of the self-attention stack (`which: 'self'`: encoder layers and
 * cross-attention left out) or of a decoder's cross-attention (`'cross'`).
 */
function outFeaturesByLayer(
  index: TensorIndex,
  suffix: string,
  mainLayers: number | null,
  which: 'self' | 'cross' = 'self',
): Map<number, number> {
  const shapes = index.shapes();
  const byLayer = new Map<number, number>();
  for (const row of index.rowsEndingWith(suffix)) {
    const s = shapes.rowShape[row];
    if (shapes.slots[s] === 0 || index.rank(row) !== 2 || !PLAIN_MATRIX.test(index.dtype(row))) {
      continue;
    }
    const text = shapes.text[s];
    const cross = CROSS_ATTENTION.test(text);
    if (which === 'cross' ? !cross : cross || ENCODER_SEGMENT.test(text)) {
      continue;
    }
    const part = partOfName(text);
    const layer = shapes.indexValues[shapes.indexStart[row]];
    if (part === 'vision' || part === 'mtp' || (mainLayers !== null && layer >= mainLayers)) {
      continue;
    }
    byLayer.set(layer, index.dim(row, 0));
  }
  return byLayer;
}

function groupsOf(
  perLayer: Map<number, number>,
  label: string,
  describe: (elements: number) => string,
): KvLayerGroup[] {
  const counts = new Map<number, number>();
  for (const elements of perLayer.values()) {
    counts.set(elements, (counts.get(elements) ?? 0) + 1);
  }
  return [...counts.entries()].map(([elements, layers]) => ({
    label,
    layers,
    elementsPerToken: elements,
    window: null,
    formula: describe(elements),
  }));
}

/** Layer indices of DeepSeek-style MTP layers: the ones holding `eh_proj` / `enorm` (README_WEIGHTS.md). */
function firstMtpLayer(index: TensorIndex): number | null {
  const shapes = index.shapes();
  let lowest: number | null = null;
  for (const row of [...index.rowsEndingWith('.eh_proj.weight'), ...index.rowsEndingWith('.enorm.weight')]) {
    if (shapes.slots[shapes.rowShape[row]] > 0) {
      const layer = shapes.indexValues[shapes.indexStart[row]];
      lowest = lowest === null ? layer : Math.min(lowest, layer);
    }
  }
  return lowest;
}

export function inferKvModel(
  input: AnalysisInput,
  index: TensorIndex,
): { kv: KvModel | null; mainLayers: number | null } {
  // The layer index of the first MTP layer is the main stack's layer count (DeepSeek-V3: 61).
  const mainLayers = firstMtpLayer(index);
  const notes = [
    'No config.json: inferred from the header. Every layer with a key projection is counted as full attention; sliding windows and linear-attention / state-space state need config.json.',
  ];
  const mla = outFeaturesByLayer(index, '.kv_a_proj_with_mqa.weight', mainLayers);
  if (mla.size > 0) {
    return {
      kv: {
        attention: 'MLA',
        groups: groupsOf(
          mla,
          'MLA latent',
          (elements) => `kv_a_proj_with_mqa out features ${elements} = kv_lora_rank + qk_rope_head_dim (one latent)`,
        ),
        state: null,
        notes,
      },
      mainLayers,
    };
  }
  const self = selfAttentionKv(input, index, mainLayers, notes);
  const cross = self.kv ? inferCrossAttention(index) : null;
  if (!self.kv || !cross) {
    return self;
  }
  const groups = self.kv.groups.map((group) => ({ ...group, label: `decoder self-${group.label}` }));
  return { ...self, kv: { ...self.kv, groups, crossAttention: cross } };
}

/**
 * The cross-attention a decoder layer keeps of the encoder's output: k and v out features per layer. Whisper's input
 * positions are its encoder's learnt positions (every clip is padded to them); a text encoder's limit is left to
 * config.json (BART's learnt positions carry an offset, Marian's and M2M100's are not saved).
 */
function inferCrossAttention(index: TensorIndex): CrossAttentionCache | null {
  const perLayer = new Map<number, number>();
  for (const [k, v] of [
    ['.encoder_attn.k_proj.weight', '.encoder_attn.v_proj.weight'],
    ['.EncDecAttention.k.weight', '.EncDecAttention.v.weight'],
  ]) {
    const values = outFeaturesByLayer(index, v, null, 'cross');
    for (const [layer, width] of outFeaturesByLayer(index, k, null, 'cross')) {
      perLayer.set(layer, width + (values.get(layer) ?? width));
    }
  }
  const widths = new Set(perLayer.values());
  if (widths.size !== 1) {
    return null;
  }
  const [elements] = widths;
  const audio = index.names.some((name) => AUDIO_FRONT_END.test(name));
  const positions = audio ? index.names.findIndex((name) => ENCODER_POSITIONS.test(name)) : -1;
  const limit = positions >= 0 ? index.dim(positions, 0) : null;
  return {
    label: 'cross-attention to the encoder output',
    positions: limit !== null ? 'encoder positions' : 'input tokens',
    layers: perLayer.size,
    elementsPerToken: elements,
    inputLimit: limit,
    fixedInput: limit !== null,
    formula:
      `cross-attention k + v out features = ${elements} (2 × heads × head dim), over ` +
      (limit !== null
        ? `${groupDigits(limit)} encoder positions per sequence (${index.names[positions]} rows: every clip is padded to them)`
        : 'as many input positions as the input has (its limit needs config.json)'),
  };
}

function selfAttentionKv(
  input: AnalysisInput,
  index: TensorIndex,
  mainLayers: number | null,
  notes: string[],
): { kv: KvModel | null; mainLayers: number | null } {
  const keys = outFeaturesByLayer(index, '.k_proj.weight', mainLayers);
  const values = outFeaturesByLayer(index, '.v_proj.weight', mainLayers);
  if (keys.size > 0) {
    const perLayer = new Map<number, number>();
    for (const [layer, k] of keys) {
      perLayer.set(layer, k + (values.get(layer) ?? k));
    }
    const queries = outFeaturesByLayer(index, '.q_proj.weight', mainLayers);
    const [layer, k] = [...keys.entries()][0];
    return {
      kv: {
        // q and k share the head dim, so equal widths mean as many KV heads as query heads.
        attention: queries.get(layer) === k ? 'MHA' : 'GQA',
        groups: groupsOf(
          perLayer,
          'attention (from k_proj / v_proj)',
          (elements) => `k_proj + v_proj out features = ${elements} (2 × KV heads × head dim)`,
        ),
        state: null,
        notes,
      },
      mainLayers,
    };
  }
  // Fused QKV projections: the split needs the heads the architecture analysis works out.
  const architecture = analyzeArchitecture(input).section;
  // An encoder's stack attends over its whole input at once and caches nothing.
  const encoderStack = ENCODER_STACK_PREFIX.test(architecture?.layerPrefix ?? '');
  if (!encoderStack && architecture?.layers && architecture.kvHeads && architecture.headDim) {
    const elements = 2 * architecture.kvHeads * architecture.headDim;
    return {
      kv: {
        attention: architecture.attention === 'MLA' ? 'MLA' : (architecture.attention ?? 'GQA'),
        groups: [
          {
            label: 'attention (from the architecture analysis)',
            layers: architecture.layers,
            elementsPerToken: elements,
            window: null,
            formula: `2 × ${architecture.kvHeads} KV heads × ${architecture.headDim} head dim (${architecture.headDimSource ?? 'guess'}) = ${elements}`,
          },
        ],
        state: null,
        notes,
      },
      mainLayers: architecture.layers,
    };
  }
  return { kv: null, mainLayers };
}
