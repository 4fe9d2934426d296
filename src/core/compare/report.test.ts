/** The report's `compare` section: names decoded, groups exact, lists capped, LoRA verdict included. */
import { describe, expect, it } from 'vitest';
import { buildReport } from '../report/build-report';
import { headerFromSpecs } from '../../testing/models/header-from-specs';
import { compareBaseTensors, minusLayerTensors, peftAdapterTensors, REMOVED_LAYER } from '../../testing/compare-pairs';
import { ALIGN_RULES } from './align';
import { compareSides } from './compare';
import { buildCompareSection } from './report';
import { sideOf } from '../../testing/compare-builders';

describe('compare report section', () => {
  it('lists what changed with exact counts and the parameter delta', () => {
    const a = sideOf(compareBaseTensors());
    const b = sideOf(
      minusLayerTensors().map((tensor) =>
        tensor.name === 'lm_head.weight'
          ? { ...tensor, dtype: 'F32' }
          : tensor.name === 'model.norm.weight'
            ? { ...tensor, shape: [65] }
            : tensor,
      ),
    );
    const section = buildCompareSection(
      { name: 'a.safetensors', columns: a.columns },
      { name: 'b.safetensors', url: 'https://example.com/b.safetensors', columns: b.columns },
      compareSides(a, b, ALIGN_RULES),
    );
    expect(section.a).toMatchObject({ name: 'a.safetensors', tensors: compareBaseTensors().length });
    expect(section.b.url).toBe('https://example.com/b.safetensors');
    expect(section.groups['only-a'].tensors).toBe(9);
    expect(section.tensors.onlyA.every((name) => name.startsWith(`model.layers.${REMOVED_LAYER}.`))).toBe(true);
    expect(section.tensors.dtype).toEqual([{ name: 'lm_head.weight', a: 'BF16', b: 'F32' }]);
    expect(section.tensors.shape).toEqual([
      { name: 'model.norm.weight', a: [64], b: [65], dtypeA: 'BF16', dtypeB: 'BF16' },
    ]);
    expect(section.parameterDelta).toBe(section.b.parameters - section.a.parameters);
    expect(section.parameterDelta).toBe(-section.groups['only-a'].elementsA + 1);
    // Changed modules first.
    expect(section.modules[0].status).not.toBe('identical');
    expect(section.lora).toBeUndefined();
    // JSON-safe: no typed arrays or Maps.
    expect(JSON.parse(JSON.stringify(section))).toEqual(section);
  });

  it('goes into the report as `compare`, with the LoRA verdict when one side is an adapter', () => {
    const header = headerFromSpecs(peftAdapterTensors());
    const adapter = sideOf(peftAdapterTensors());
    const base = sideOf(compareBaseTensors());
    const section = buildCompareSection(
      { name: 'adapter_model.safetensors', columns: adapter.columns },
      { name: 'model.safetensors', columns: base.columns },
      compareSides(adapter, base, ALIGN_RULES),
    );
    const report = buildReport({
      source: { kind: 'file', name: 'adapter_model.safetensors' },
      outcome: { kind: 'parsed', header },
      bytesRead: 0,
      sections: { compare: section },
    });
    expect(report.compare).toMatchObject({ lora: { ok: true, adapterSide: 'a' } });
  });
});
