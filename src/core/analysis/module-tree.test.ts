/** The module tree: collapsing identical numbered siblings, totals, name patterns, chart series and speed. */
import { describe, expect, it } from 'vitest';
import type { TensorSpec } from '../../testing/build-safetensors';
import { deepseekV3Fixture } from '../../testing/models/fp8-deepseek-v3';
import { headerFromSpecs, inputFromFixture } from '../../testing/models/header-from-specs';
import { kohyaSd15Fixture, kohyaSd15LayeredModules } from '../../testing/models/lora';
import { tinyLlamaFixture } from '../../testing/models/plain-models';
import { allTensorNames } from '../model';
import { modulePatternMatcher } from './module-pattern';
import { buildModuleTree, moduleTreeAnalysis, moduleTreeSteps } from './module-tree';
import type { ModuleNode } from './report-sections';
import { tensorIndex } from './tensor-index';
import {
  MAX_LAYER_POINTS,
  MAX_TREE_NODES,
  MAX_TREE_TEMPLATES,
  SUMMED_LAYER_POINTS,
  TREE_ROWS_PER_STEP,
} from './analysis-limits';
import { letterSegment } from '../../testing/huge-fixtures';

function child(node: ModuleNode | undefined, label: string): ModuleNode {
  const found = node?.children?.find((c) => c.label === label);
  if (!found) {
    throw new Error(`no child ${label} under ${node?.pattern}; have ${node?.children?.map((c) => c.label).join(', ')}`);
  }
  return found;
}

describe('DeepSeek-V3 layout', () => {
  const fixture = deepseekV3Fixture();
  const input = inputFromFixture(fixture);
  const section = moduleTreeAnalysis.run(input).section;
  const root = section?.root;

  it('collapses dense layers 0–2 into one run, keeps the MoE layer and the MTP layer apart', () => {
    const layers = child(child(root, 'model'), 'layers');
    expect(layers.pattern).toBe('model.layers.');
    expect(layers.children?.map((c) => [c.label, c.repeat?.count ?? 1])).toEqual([
      ['0–2', 3],
      ['3', 1],
      ['61', 1],
    ]);
    expect(child(layers, '0–2').pattern).toBe('model.layers.{0-2}.');
  });

  it('collapses 256 identical experts into one node with exact totals', () => {
    const experts = child(child(child(child(child(root, 'model'), 'layers'), '3'), 'mlp'), 'experts');
    expect(experts.children?.map((c) => c.label)).toEqual(['0–255']);
    const run = child(experts, '0–255');
    expect(run.repeat).toEqual({ count: 256, first: 0, last: 255 });
    // Per expert: three F8 matrices 2048×7168 plus three F32 scales of 16×56.
    expect(run.tensors).toBe(256 * 6);
    expect(run.elements).toBe(256 * 3 * (2048 * 7168 + 16 * 56));
    expect(run.bytes).toBe(256 * 3 * (2048 * 7168 + 4 * 16 * 56));
    const gate = child(run, 'gate_proj');
    expect(gate.pattern).toBe('model.layers.3.mlp.experts.{0-255}.gate_proj.');
    expect(child(gate, 'weight')).toMatchObject({ dtype: 'F8_E4M3', shape: [2048, 7168], tensors: 256 });
  });

  it('root totals equal the header totals', () => {
    const bytes = fixture.specs.reduce(
      (t, s) =>
        t + input.header.tensors.end[fixture.specs.indexOf(s)] - input.header.tensors.begin[fixture.specs.indexOf(s)],
      0,
    );
    expect(root?.tensors).toBe(fixture.specs.length);
    expect(root?.bytes).toBe(bytes);
  });

  it('patterns select exactly the rows of their node', () => {
    const run = child(child(child(child(child(root, 'model'), 'layers'), '3'), 'mlp'), 'experts').children?.[0];
    const matches = modulePatternMatcher(run?.pattern ?? '');
    const selected = input.names.filter(matches);
    expect(selected).toHaveLength(256 * 6);
    expect(matches('model.layers.3.mlp.experts.255.down_proj.weight_scale_inv')).toBe(true);
    expect(matches('model.layers.61.mlp.experts.0.down_proj.weight')).toBe(false);
    expect(matches('model.layers.3.mlp.experts.256.down_proj.weight')).toBe(false);
    const dense = modulePatternMatcher('model.layers.{0-2}.');
    expect(input.names.filter(dense).length).toBe(3 * (2 * 5 + 4 + 2 * 3));
  });

  it('emits bytes-by-module and bytes-by-layer series', () => {
    expect(section?.bytesByTopLevel.map((p) => p.label).sort()).toEqual([
      'lm_head',
      'model.embed_tokens',
      'model.layers',
      'model.norm',
    ]);
    expect(section?.bytesByLayer[0].prefix).toBe('model.layers.');
    expect(section?.bytesByLayer[0].points.map((p) => p.index)).toEqual([0, 1, 2, 3, 61]);
  });

  it('is plain data (structured-clone and JSON safe)', () => {
    expect(JSON.parse(JSON.stringify(section))).toEqual(section);
  });
});

describe('structural identity', () => {
  it('keeps numbered siblings apart when shapes differ', () => {
    const fixture = tinyLlamaFixture(3);
    fixture.specs = fixture.specs.map((spec) =>
      spec.name === 'model.layers.1.mlp.up_proj.weight' ? { ...spec, shape: [4096, 2048] } : spec,
    );
    const tree = buildModuleTree(
      tensorIndex(headerFromSpecs(fixture.specs), allTensorNames(headerFromSpecs(fixture.specs).tensors)),
    );
    const layers = child(child(tree?.root, 'model'), 'layers');
    expect(layers.children?.map((c) => c.label)).toEqual(['0', '1', '2']);
  });

  it('handles a name that is both a tensor and a prefix (bitsandbytes `.weight` + `.weight.absmax`)', () => {
    const specs: TensorSpec[] = [
      { name: 'a.weight', dtype: 'U8', shape: [8, 1] },
      { name: 'a.weight.absmax', dtype: 'F32', shape: [1] },
    ];
    const header = headerFromSpecs(specs);
    const tree = buildModuleTree(tensorIndex(header, allTensorNames(header.tensors)));
    const weight = child(child(tree?.root, 'a'), 'weight');
    expect(weight.tensors).toBe(2);
    expect(weight.children?.map((c) => c.label)).toEqual(['absmax']);
  });
});

describe('many children under one node', () => {
  it('finds each child again past the ones it scans, keeping a literal `#` apart from the numbered ones', () => {
    const letters = Array.from({ length: 20 }, (_, i) => String.fromCharCode(97 + i));
    const specs: TensorSpec[] = [
      ...letters.map((letter) => ({ name: `m.${letter}.weight`, dtype: 'F16' as const, shape: [4, 4] })),
      ...letters.map((letter) => ({ name: `m.${letter}.bias`, dtype: 'F16' as const, shape: [4] })),
      { name: 'm.#.weight', dtype: 'F32', shape: [2] },
      { name: 'm.0.weight', dtype: 'F32', shape: [3] },
      { name: 'm.1.weight', dtype: 'F32', shape: [3] },
    ];
    const header = headerFromSpecs(specs);
    const tree = buildModuleTree(tensorIndex(header, allTensorNames(header.tensors)));
    const m = child(tree?.root, 'm');
    expect(m.tensors).toBe(specs.length);
    for (const letter of letters) {
      const node = child(m, letter);
      expect(node.children?.map((c) => c.label)).toEqual(['bias', 'weight']);
      expect(child(node, 'weight')).toMatchObject({ tensors: 1, elements: 16, bytes: 32, dtype: 'F16', shape: [4, 4] });
    }
    expect(child(m, '#')).toMatchObject({ tensors: 1, elements: 2 });
    expect(child(m, '0–1')).toMatchObject({ tensors: 2, elements: 6, repeat: { count: 2, first: 0, last: 1 } });
  });
});

describe('bytes by layer over MAX_LAYER_POINTS layers', () => {
  it('sums runs of consecutive layers into one point each, with exact totals', () => {
    const layerCount = MAX_LAYER_POINTS * 3 + 1;
    // Layer i holds i + 1 bytes, so every run's sum is known.
    const specs: TensorSpec[] = Array.from({ length: layerCount }, (_, i) => ({
      name: `layers.${i}.w`,
      dtype: 'U8',
      shape: [i + 1],
    }));
    const header = headerFromSpecs(specs);
    const series = buildModuleTree(tensorIndex(header, allTensorNames(header.tensors)))?.bytesByLayer[0];
    expect(series?.prefix).toBe('layers.');
    expect(series?.layersPerPoint).toBe(Math.ceil(layerCount / SUMMED_LAYER_POINTS));
    expect(series?.points.length).toBeLessThanOrEqual(SUMMED_LAYER_POINTS);
    // 385 layers in runs of 7: the first run is layers 0–6 (1 + … + 7 bytes), the last holds layers 378–384.
    expect(series?.points[0]).toEqual({ index: 0, last: 6, bytes: 28, elements: 28, tensors: 7 });
    expect(series?.points.at(-1)).toEqual({
      index: 378,
      last: 384,
      bytes: 379 + 380 + 381 + 382 + 383 + 384 + 385,
      elements: 379 + 380 + 381 + 382 + 383 + 384 + 385,
      tensors: 7,
    });
    const total = series?.points.reduce((sum, point) => sum + point.bytes, 0);
    expect(total).toBe((layerCount * (layerCount + 1)) / 2);
  });

  it('keeps one point per layer up to MAX_LAYER_POINTS', () => {
    const specs: TensorSpec[] = Array.from({ length: MAX_LAYER_POINTS }, (_, i) => ({
      name: `layers.${i}.w`,
      dtype: 'U8',
      shape: [1],
    }));
    const header = headerFromSpecs(specs);
    const series = buildModuleTree(tensorIndex(header, allTensorNames(header.tensors)))?.bytesByLayer[0];
    expect(series?.layersPerPoint).toBeUndefined();
    expect(series?.points.map((point) => point.index)).toEqual(specs.map((_, i) => i));
    expect(series?.points.every((point) => point.last === undefined)).toBe(true);
  });
});

describe('speed', () => {
  it('builds the tree for 250,000 tensors (93 layers × 896 experts × 3) quickly', () => {
    const specs: TensorSpec[] = [];
    for (let layer = 0; layer < 93; layer++) {
      for (let expert = 0; expert < 896; expert++) {
        for (const proj of ['gate_proj', 'up_proj', 'down_proj']) {
          specs.push({
            name: `model.layers.${layer}.mlp.experts.${expert}.${proj}.weight`,
            dtype: 'BF16',
            shape: [3072, 7168],
          });
        }
      }
    }
    const header = headerFromSpecs(specs);
    const names = allTensorNames(header.tensors);
    const index = tensorIndex(header, names);
    const start = performance.now();
    const tree = buildModuleTree(index);
    const elapsed = performance.now() - start;
    expect(tree?.root.tensors).toBe(249_984);
    expect(tree?.nodeCount).toBeLessThan(20);
    // ~300 ms on a quiet machine (npm run bench measures speed); the bound only catches an accidental quadratic,
    // with room for a busy two-core runner.
    expect(elapsed).toBeLessThan(10_000);
  });

  it("pauses along the way: accumulating a template's rows into instances is cut in parts", () => {
    const build = (experts: number) => {
      const specs: TensorSpec[] = [];
      for (let layer = 0; layer < 40; layer++) {
        for (let expert = 0; expert < experts; expert++) {
          for (const proj of ['gate_proj', 'up_proj']) {
            specs.push({ name: `layers.${layer}.experts.${expert}.${proj}`, dtype: 'BF16', shape: [4, 4] });
          }
        }
      }
      const header = headerFromSpecs(specs);
      const index = tensorIndex(header, allTensorNames(header.tensors));
      const steps = moduleTreeSteps(index);
      let pauses = 0;
      let step = steps.next();
      for (; !step.done; step = steps.next()) {
        pauses++;
      }
      expect(step.value).toEqual(buildModuleTree(index));
      expect(step.value?.root.tensors).toBe(specs.length);
      return pauses;
    };
    // Both trees have the same nodes (40 identical layers, identical experts); only the rows per template differ,
    // and the layers' instances are accumulated over each template's rows in parts of TREE_ROWS_PER_STEP rows.
    const parts = (experts: number) => 2 * Math.ceil((40 * experts) / TREE_ROWS_PER_STEP);
    expect(build(2_048) - build(512)).toBeGreaterThanOrEqual(parts(2_048) - parts(512));
  });
});

describe('hostile numbers of distinct module paths', () => {
  function distinctPaths(count: number, levels: 1 | 2): TensorSpec[] {
    return Array.from({ length: count }, (_, i) => ({
      name:
        levels === 1
          ? `enc.${letterSegment(i)}.weight`
          : `enc.${letterSegment(Math.floor(i / 100))}.${letterSegment(i % 100)}.weight`,
      dtype: 'U8',
      shape: [1],
    }));
  }

  function countNodes(node: ModuleNode): number {
    return 1 + (node.children ?? []).reduce((sum, c) => sum + countNodes(c), 0);
  }

  /** At every node, the children shown plus the folded `more` account for all its tensors. */
  function expectTotalsAddUp(node: ModuleNode): void {
    if (!node.children) {
      return;
    }
    const shown = node.children.reduce((sum, c) => sum + c.tensors, 0);
    expect(shown + (node.more?.tensors ?? 0)).toBe(node.tensors);
    node.children.forEach(expectTotalsAddUp);
  }

  it('stops growing at MAX_TREE_NODES and folds the rest with exact totals', () => {
    const header = headerFromSpecs(distinctPaths(12_000, 2));
    const section = buildModuleTree(tensorIndex(header, allTensorNames(header.tensors)));
    if (!section) {
      throw new Error('no module tree');
    }
    expect(section.nodeBudgetReached).toBe(true);
    expect(countNodes(section.root)).toBeLessThanOrEqual(MAX_TREE_NODES + 1);
    expect(section.root.tensors).toBe(12_000);
    expectTotalsAddUp(section.root);
  });

  it('gives up, with exact totals, above MAX_TREE_TEMPLATES distinct paths', () => {
    const count = MAX_TREE_TEMPLATES + 1;
    const header = headerFromSpecs(distinctPaths(count, 1));
    const section = buildModuleTree(tensorIndex(header, allTensorNames(header.tensors)));
    expect(section?.gaveUp).toEqual({ distinctPaths: count, limit: MAX_TREE_TEMPLATES });
    expect(section?.root.tensors).toBe(count);
    expect(section?.root.bytes).toBe(count);
    expect(section?.root.children).toBeUndefined();
  });
});

describe('module paths written with underscores (kohya)', () => {
  const input = inputFromFixture(kohyaSd15Fixture(16, 8, kohyaSd15LayeredModules()));
  const section = moduleTreeAnalysis.run(input).section;
  const root = section?.root;

  it('cuts them into levels at the indices, with the stored separators in the patterns', () => {
    expect(root?.children?.map((c) => c.pattern)).toEqual(['lora_te_', 'lora_unet_']);
    const layers = child(child(root, 'lora_te'), 'text_model_encoder_layers');
    expect(layers.children?.map((c) => [c.label, c.repeat?.count ?? 1, c.tensors])).toEqual([['0–11', 12, 216]]);
    const run = child(layers, '0–11');
    expect(run.pattern).toBe('lora_te_text_model_encoder_layers_{0-11}_');
    expect(run.children?.map((c) => c.label)).toEqual([
      'mlp_fc1',
      'mlp_fc2',
      'self_attn_k_proj',
      'self_attn_out_proj',
      'self_attn_q_proj',
      'self_attn_v_proj',
    ]);
    expect(child(run, 'mlp_fc1').pattern).toBe('lora_te_text_model_encoder_layers_{0-11}_mlp_fc1.');
    // The UNet's blocks differ in width, so each stays apart; the to_out.0 of diffusers is its own level.
    const blocks = child(child(root, 'lora_unet'), 'down_blocks');
    expect(blocks.children?.map((c) => c.label)).toEqual(['0', '1', '2']);
    const attn = child(child(child(child(child(blocks, '1'), 'attentions'), '0–1'), 'transformer_blocks'), '0');
    expect(attn.children?.map((c) => c.label)).toEqual(['attn1_to_k', 'attn1_to_out', 'attn1_to_q', 'attn1_to_v']);
    const weight = child(child(child(child(attn, 'attn1_to_out'), '0'), 'lora_up'), 'weight');
    expect(weight.pattern).toBe(
      'lora_unet_down_blocks_1_attentions_{0-1}_transformer_blocks_0_attn1_to_out_0.lora_up.weight',
    );
    expect(weight).toMatchObject({ tensors: 2, shape: [640, 16], dtype: 'F16' });
    expect(child(child(child(root, 'lora_unet'), 'time_embedding_linear'), '1').pattern).toBe(
      'lora_unet_time_embedding_linear_1.',
    );
  });

  it("each node's pattern picks exactly its tensors from the stored names", () => {
    const visit = (node: ModuleNode): number => {
      const matched = input.names.filter(modulePatternMatcher(node.pattern)).length;
      expect(matched, node.pattern).toBe(node.tensors);
      return 1 + (node.children ?? []).reduce((sum, c) => sum + visit(c), 0);
    };
    expect(visit(root as ModuleNode)).toBeGreaterThan(40);
    // A plain name that ends with `_` is one name, not a prefix.
    expect(['w_', 'w_x'].filter(modulePatternMatcher('w_'))).toEqual(['w_']);
  });

  it('charts the top-level modules and the layers by their stored prefixes', () => {
    expect(section?.bytesByTopLevel.map((p) => [p.label, p.prefix])).toContainEqual([
      'lora_te_text_model_encoder_layers',
      'lora_te_text_model_encoder_layers_',
    ]);
    expect(section?.bytesByLayer.map((s) => [s.prefix, s.points.length])).toContainEqual([
      'lora_te_text_model_encoder_layers_',
      12,
    ]);
  });

  it('leaves the shared index with the names as stored', () => {
    const index = tensorIndex(input.header, input.names);
    expect(index.shapes().text).toContain('lora_te_text_model_encoder_layers_0_mlp_fc1.alpha');
    expect(index.row('lora_te_text_model_encoder_layers_0_mlp_fc1.alpha')).toBeGreaterThanOrEqual(0);
  });
});
