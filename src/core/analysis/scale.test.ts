/**
 * The analyses on the benchmark's 250,638-tensor MoE header (93 layers × 896 experts × 3 projections) and on its
 * packed twin: exact results, checked against values derived from the specs. (Speed is the benchmark's business;
 * these tests pin what the fast paths must keep computing.)
 */
import { describe, expect, it } from 'vitest';
import { allTensorNames } from '../model';
import type { TensorSpec } from '../../testing/build-safetensors';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { moePackedTensors, moeUnpackedTensors, SEED_MOE, type MoeShape } from '../../testing/moe-model';
import { runAnalyses, type AnalysisSections } from './analysis-registry';
import type { ModuleNode } from './report-sections';

function analyze(specs: readonly TensorSpec[]): { sections: AnalysisSections; findings: unknown[] } {
  const header = headerFromSpecs(specs, { metadata: { format: 'pt' } });
  return runAnalyses({
    header,
    names: allTensorNames(header.tensors),
    fileName: 'moe.safetensors',
    sidecars: {},
    tensorBytes: new Map(),
  });
}

function elementsOf(specs: readonly TensorSpec[]): number {
  return specs.reduce((total, spec) => total + spec.shape.reduce((product, dim) => product * dim, 1), 0);
}

function child(node: ModuleNode | undefined, label: string): ModuleNode {
  const found = node?.children?.find((c) => c.label === label);
  if (!found) {
    throw new Error(`no child ${label} under ${node?.pattern}; have ${node?.children?.map((c) => c.label).join(', ')}`);
  }
  return found;
}

const { layers, experts, hidden, expertIntermediate, vocab } = SEED_MOE;
/** Per layer: input/post norms, q/k/v/o, router; then 3 projections per expert. */
const ATTENTION_TENSORS = 7;

function architectureOf(packed: boolean): Record<string, unknown> {
  return {
    layers,
    layerPrefix: 'model.layers.',
    partialLayers: false,
    hiddenSize: hidden,
    intermediateSize: expertIntermediate,
    attention: 'GQA',
    heads: 64,
    kvHeads: 8,
    headDim: 128,
    headDimSource: 'guess',
    experts,
    expertsPacked: packed,
    moeLayers: layers,
    sharedExperts: 0,
    mla: null,
    tiedEmbeddings: false,
    mtpLayers: 0,
    vocabSize: vocab,
    towers: [],
    evidence: [
      'hidden_size 7168 from norm model.layers.0.input_layernorm.weight',
      'vocab 163840 from model.embed_tokens.weight rows',
      '93 layers: indices 0–92 under model.layers.',
      'self_attn.q_proj width 8192, self_attn.k_proj width 1024',
      'head_dim 128 is a guess (common value dividing q and kv widths); heads 64 / kv heads 8 follow from it. config.json head_dim would settle it.',
      `896 routed experts in 93 MoE layer(s), ${packed ? 'packed as 3-D tensors [E, …] (shape[0] = E)' : 'one tensor set per expert (experts.N.)'}`,
    ],
    ...(packed ? {} : { family: 'llama-like MoE' }),
  };
}

describe('250,638-tensor MoE header (one tensor per expert projection)', () => {
  const specs = moeUnpackedTensors();
  const { sections, findings } = analyze(specs);
  const elements = elementsOf(specs);
  const perLayer = ATTENTION_TENSORS + 3 * experts;

  it('has the size the benchmark describes', () => {
    expect(specs).toHaveLength(250_638);
    expect(findings).toEqual([]);
  });

  it('architecture: 93 layers, 896 experts, hidden 7168, GQA with 8 KV heads', () => {
    expect(sections.architecture).toEqual(architectureOf(false));
  });

  it('quantization: not quantized, every matrix listed as high precision with an exact count', () => {
    const quantization = sections.quantization;
    expect(quantization).toMatchObject({
      family: 'none',
      format: 'bf16',
      summary: 'Not quantized: 100% of stored elements are BF16.',
      bits: 16,
      weightDtype: 'BF16',
      bitsPerWeight: 16,
      overallBitsPerParam: 16,
      quantizedLayers: { count: 0, names: [] },
      logicalParams: elements,
      storedElements: elements,
      confidence: 'high',
      evidence: [
        'no quantization signature among 250\u2009638 tensors (no packed weights, scale sidecars or quant configs)',
      ],
      precision: {
        byDtype: [{ dtype: 'BF16', tensors: specs.length, elements, bytes: 2 * elements, share: 1 }],
        dominant: 'BF16',
      },
    });
    // Rank-2 tensors: embedding, lm_head, and per layer q/k/v/o, the router and 3 projections per expert.
    const matrices = 2 + layers * (5 + 3 * experts);
    expect(quantization?.highPrecisionLayers.count).toBe(matrices);
    expect(quantization?.highPrecisionLayers.names).toHaveLength(200);
    expect(quantization?.highPrecisionLayers.names.slice(0, 3)).toEqual([
      'model.embed_tokens',
      'model.layers.0.self_attn.q_proj',
      'model.layers.0.self_attn.k_proj',
    ]);
    // Index 199: embedding, 4 attention matrices, the router, then experts 0–63 (192 tensors) and expert 64's gate.
    expect(quantization?.highPrecisionLayers.names[199]).toBe('model.layers.0.mlp.experts.64.up_proj');
  });

  it('no adapter section; metadata says PyTorch', () => {
    expect(sections.lora).toBeUndefined();
    expect(sections.metadataInsights?.format).toBe('pt');
  });

  it('module tree: 93 identical layers and 896 identical experts collapse into one node each', () => {
    const tree = sections.moduleTree;
    expect(tree?.nodeCount).toBe(34);
    const root = tree?.root;
    expect(root).toMatchObject({ tensors: specs.length, elements, bytes: 2 * elements });
    const layerStack = child(child(root, 'model'), 'layers');
    expect(layerStack.children?.map((c) => c.label)).toEqual(['0–92']);
    const run = child(layerStack, '0–92');
    expect(run).toMatchObject({
      pattern: 'model.layers.{0-92}.',
      repeat: { count: layers, first: 0, last: layers - 1 },
      tensors: layers * perLayer,
    });
    expect(run.children?.map((c) => c.label)).toEqual([
      'input_layernorm',
      'mlp',
      'post_attention_layernorm',
      'self_attn',
    ]);
    const expertRun = child(child(child(run, 'mlp'), 'experts'), '0–895');
    expect(expertRun).toMatchObject({
      pattern: 'model.layers.{0-92}.mlp.experts.{0-895}.',
      repeat: { count: experts, first: 0, last: experts - 1 },
      tensors: layers * experts * 3,
      elements: layers * experts * 3 * expertIntermediate * hidden,
      bytes: 2 * layers * experts * 3 * expertIntermediate * hidden,
    });
    expect(expertRun.children?.map((c) => c.label)).toEqual(['down_proj', 'gate_proj', 'up_proj']);
    expect(child(child(expertRun, 'gate_proj'), 'weight')).toMatchObject({
      dtype: 'BF16',
      shape: [expertIntermediate, hidden],
      tensors: layers * experts,
    });
    expect(child(child(child(run, 'self_attn'), 'k_proj'), 'weight')).toMatchObject({ shape: [1024, hidden] });
  });

  it('module tree series: bytes by top-level module and by layer', () => {
    const tree = sections.moduleTree;
    expect(tree?.bytesByTopLevel.map((p) => [p.label, p.tensors])).toEqual([
      ['model.layers', layers * perLayer],
      ['lm_head', 1],
      ['model.embed_tokens', 1],
      ['model.norm', 1],
    ]);
    expect(tree?.bytesByLayer).toHaveLength(1);
    const series = tree?.bytesByLayer[0];
    expect(series?.prefix).toBe('model.layers.');
    expect(series?.points.map((p) => p.index)).toEqual(Array.from({ length: layers }, (_, i) => i));
    const layerElements = elementsOf(specs.filter((spec) => spec.name.startsWith('model.layers.0.')));
    for (const point of series?.points ?? []) {
      expect(point).toEqual({
        index: point.index,
        tensors: perLayer,
        elements: layerElements,
        bytes: 2 * layerElements,
      });
    }
  });
});

describe('the packed twin (experts as 3-D tensors)', () => {
  const specs = moePackedTensors();
  const { sections, findings } = analyze(specs);
  const elements = elementsOf(specs);

  it('architecture: the same model, experts packed', () => {
    expect(findings).toEqual([]);
    expect(sections.architecture).toEqual(architectureOf(true));
  });

  it('quantization and module tree', () => {
    expect(sections.quantization).toMatchObject({
      family: 'none',
      format: 'bf16',
      logicalParams: elements,
      storedElements: elements,
      highPrecisionLayers: { count: 2 + layers * 7 },
    });
    const tree = sections.moduleTree;
    expect(tree?.nodeCount).toBe(29);
    const run = child(child(child(tree?.root, 'model'), 'layers'), '0–92');
    expect(child(child(child(run, 'mlp'), 'experts'), 'gate_up_proj')).toMatchObject({
      dtype: 'BF16',
      shape: [experts, hidden, 2 * expertIntermediate],
      tensors: layers,
    });
  });
});

describe('header order does not change the results', () => {
  // Writers list `layers.10` before `layers.2`; shuffled order must give the same architecture and tree.
  const shape: MoeShape = { ...SEED_MOE, layers: 12, experts: 24 };
  const numeric = moeUnpackedTensors(shape);
  const lexicographic = [...numeric].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const a = analyze(numeric).sections;
  const b = analyze(lexicographic).sections;

  it('module tree', () => {
    expect(b.moduleTree).toEqual(a.moduleTree);
    expect(child(child(child(b.moduleTree?.root, 'model'), 'layers'), '0–11').repeat?.count).toBe(12);
  });

  it('architecture', () => {
    // Only the tensor quoted as the hidden-size source may differ (the first norm in header order).
    expect({ ...b.architecture, evidence: [] }).toEqual({ ...a.architecture, evidence: [] });
    expect(b.architecture?.experts).toBe(24);
    expect(b.architecture?.layers).toBe(12);
  });
});
