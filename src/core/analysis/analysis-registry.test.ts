/** The analysis registry: what the worker fetches (capped), and that no header can break the analyses. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DTYPES } from '../dtypes';
import { codeSpec } from '../findings/codes';
import { INSIGHT_CODES } from '../findings/codes-insights';
import type { TensorSpec } from '../../testing/build-safetensors';
import { qwen3Int8crFixture } from '../../testing/models/comfy-qwen3-int8cr';
import { headerFromSpecs, inputFromFixture } from '../../testing/models/header-from-specs';
import { kohyaSd15Fixture } from '../../testing/models/lora';
import { tinyLlamaFixture } from '../../testing/models/plain-models';
import { allTensorNames, type Finding } from '../model';
import { makeFinding } from '../findings/make-finding';
import { MAX_WANTED_BYTES, MAX_WANTED_TENSORS } from './analysis-limits';
import {
  ANALYSES,
  rerunSidecarAnalyses,
  runAnalyses,
  runReportAnalyses,
  runViewAnalyses,
  tensorBytesWanted,
} from './analysis-registry';
import { VIEW_SECTIONS } from './analysis-types';

describe('tensorBytesWanted', () => {
  it('asks for the comfy_quant configs of a ComfyUI file', () => {
    const input = inputFromFixture(qwen3Int8crFixture(2));
    const rows = tensorBytesWanted(input.header, input.names);
    expect(rows).toHaveLength(14);
    expect(rows.every((row) => input.names[row].endsWith('.comfy_quant'))).toBe(true);
  });

  it('asks for LoRA alpha scalars', () => {
    const input = inputFromFixture(kohyaSd15Fixture());
    expect(tensorBytesWanted(input.header, input.names).map((row) => input.names[row])).toHaveLength(5);
  });

  it('asks for nothing on a plain model', () => {
    const input = inputFromFixture(tinyLlamaFixture());
    expect(tensorBytesWanted(input.header, input.names)).toEqual([]);
  });

  it('caps the number of tensors', () => {
    const specs: TensorSpec[] = [];
    for (let i = 0; i < MAX_WANTED_TENSORS + 500; i++) {
      specs.push(
        { name: `l.${i}.weight`, dtype: 'I8', shape: [4, 4] },
        { name: `l.${i}.comfy_quant`, dtype: 'U8', shape: [30] },
      );
    }
    const header = headerFromSpecs(specs);
    expect(tensorBytesWanted(header, allTensorNames(header.tensors))).toHaveLength(MAX_WANTED_TENSORS);
  });

  it('caps the total bytes', () => {
    const specs: TensorSpec[] = [];
    for (let i = 0; i < 300; i++) {
      specs.push(
        { name: `l.${i}.weight`, dtype: 'I8', shape: [4, 4] },
        { name: `l.${i}.comfy_quant`, dtype: 'U8', shape: [10_000] },
      );
    }
    const header = headerFromSpecs(specs);
    const rows = tensorBytesWanted(header, allTensorNames(header.tensors));
    expect(rows.length * 10_000).toBeLessThanOrEqual(MAX_WANTED_BYTES);
    expect(rows.length).toBe(Math.floor(MAX_WANTED_BYTES / 10_000));
  });
});

/** A finding that no analysis makes, to follow through a re-run. */
const PLANTED: Finding = { ...makeFinding('analysis-failed', 'planted'), message: 'planted by the test' };

describe('runAnalyses', () => {
  it('fills every section it can and keeps them serializable', () => {
    const { sections, findings } = runAnalyses(inputFromFixture(kohyaSd15Fixture()));
    // The kohya alphas were handed in as data bytes, so dataReads says they were read.
    expect(Object.keys(sections).sort()).toEqual([
      'dataReads',
      'lora',
      'metadataInsights',
      'moduleTree',
      'quantization',
      'tableWidths',
    ]);
    expect(findings).toEqual([]);
    expect(JSON.parse(JSON.stringify(sections))).toEqual(sections);
  });

  it('runs the report first and the views after, together the same as one run', () => {
    const input = inputFromFixture(tinyLlamaFixture());
    const report = runReportAnalyses(input);
    expect(report.sections.moduleTree).toBeUndefined();
    expect(report.sections.quantization).toBeDefined();
    const whole = runViewAnalyses(report, input);
    expect(whole.sections.moduleTree).toBeDefined();
    expect(whole.sections.quantization).toBe(report.sections.quantization);
    expect(whole).toEqual(runAnalyses(input));
    expect(VIEW_SECTIONS.every((id) => ANALYSES.some((analysis) => analysis.id === id))).toBe(true);
  });

  it('re-runs only the analyses that read sidecars when a config.json arrives later', () => {
    const input = inputFromFixture(tinyLlamaFixture());
    const first = runAnalyses(input);
    expect(first.sections.memory?.config).toBe('inferred');
    // TinyLlama's published attention layout: 32 query heads, 4 KV heads of 64, 2048 context.
    const config = { model_type: 'llama', num_attention_heads: 32, num_key_value_heads: 4, hidden_size: 2048 };
    const again = rerunSidecarAnalyses(first, { ...input, sidecars: { config: { ...config, num_hidden_layers: 2 } } });
    expect(again.sections.memory?.config).toBe('config.json');
    expect(again.sections.memory?.modelType).toBe('llama');
    // Header-only analyses are not run again: their sections are the very same objects.
    expect(again.sections.moduleTree).toBe(first.sections.moduleTree);
    expect(again.sections.metadataInsights).toBe(first.sections.metadataInsights);
    // A full run over the same input gives the same sections and findings.
    const full = runAnalyses({ ...input, sidecars: { config: { ...config, num_hidden_layers: 2 } } });
    expect(again.sections).toEqual(full.sections);
    expect(again.findings).toEqual(full.findings);
  });

  it("keeps the header-only findings and replaces the sidecar analyses' own on a re-run", () => {
    const input = inputFromFixture(tinyLlamaFixture());
    const first = runAnalyses(input);
    const planted = { ...first, findingsByAnalysis: { ...first.findingsByAnalysis, moduleTree: [PLANTED] } };
    const config = { quantization_config: { quant_method: 'gptq', bits: 4, group_size: 128 } };
    const again = rerunSidecarAnalyses(planted, { ...input, sidecars: { config } });
    expect(again.findings).toContain(PLANTED);
    // config.json claims GPTQ on plain bf16 weights: the quantization analysis, re-run, says so.
    expect(again.findings.map((finding) => finding.code)).toContain('quant-config-mismatch');
    expect(first.findings.map((finding) => finding.code)).not.toContain('quant-config-mismatch');
  });

  it('lists ten analyses with distinct ids', () => {
    expect(ANALYSES.map((a) => a.id)).toEqual([
      'quantization',
      'architecture',
      'lora',
      'metadataInsights',
      'tableWidths',
      'moduleTree',
      'memory',
      'dataReads',
      'tokenizer',
      'optimizerState',
      'trainingRun',
      'sentenceModel',
      'textualInversion',
    ]);
  });

  it('never throws on arbitrary names, dtypes and shapes', () => {
    const segment = fc.oneof(
      fc.constantFrom(
        'model',
        'layers',
        'weight',
        'qweight',
        'scales',
        'biases',
        'qzeros',
        'g_idx',
        'comfy_quant',
        'lora_A',
        'lora_down',
        'alpha',
        'experts',
        'weight_scale',
        'weight_scale_inv',
        '_blocks',
        'SCB',
        'W_q',
        '',
      ),
      fc.nat(40).map(String),
    );
    const name = fc.array(segment, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('.'));
    const spec = fc.record({
      name,
      dtype: fc.constantFrom(...DTYPES, 'XX'),
      shape: fc.array(fc.nat(70), { maxLength: 4 }),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(spec, { selector: (s) => s.name, maxLength: 40 }),
        fc.boolean(),
        (specs, withBytes) => {
          const header = headerFromSpecs(specs, {
            metadata: { format: 'pt', ss_network_dim: '4', ss_tag_frequency: '{"a":{"b":"x"}}' },
          });
          const names = allTensorNames(header.tensors);
          const tensorBytes = new Map<number, Uint8Array>();
          if (withBytes) {
            for (const row of tensorBytesWanted(header, names)) {
              tensorBytes.set(row, new Uint8Array([123, 34, 120, 34, 58, 49, 125]));
            }
          }
          const { findings } = runAnalyses({
            header,
            names,
            fileName: 'x-int8cr.safetensors',
            sidecars: {},
            tensorBytes,
          });
          expect(findings.filter((f) => f.code === 'analysis-failed')).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('finding codes', () => {
  it('are never refused by the reference loader and carry a title', () => {
    for (const code of Object.keys(INSIGHT_CODES) as Array<keyof typeof INSIGHT_CODES>) {
      expect(codeSpec(code).refusedByReference).toBe(false);
      expect(codeSpec(code).title.length).toBeGreaterThan(5);
    }
  });
});
