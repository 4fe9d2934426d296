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
import { allTensorNames } from '../model';
import { MAX_WANTED_BYTES, MAX_WANTED_TENSORS } from './limits';
import { ANALYSES, runAnalyses, tensorBytesWanted } from './registry';

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
    ]);
    expect(findings).toEqual([]);
    expect(JSON.parse(JSON.stringify(sections))).toEqual(sections);
  });

  it('lists seven analyses with distinct ids', () => {
    expect(ANALYSES.map((a) => a.id)).toEqual([
      'quantization',
      'architecture',
      'lora',
      'metadataInsights',
      'moduleTree',
      'memory',
      'dataReads',
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
