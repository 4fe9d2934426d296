/**
 * Cross-check: headerFromSpecs must produce the same columns as the real parser reading the bytes
 * buildSafetensors writes for the same specs, and therefore the same analysis results.
 */
import { describe, expect, it } from 'vitest';
import { runAnalyses } from '../../core/analysis/analysis-registry';
import { allTensorNames, type ParsedHeader } from '../../core/model';
import { parseFileHead } from '../../core/parse/parse-header';
import { buildHeaderBytes } from '../build-safetensors';
import { fluxInt8ConvrotFixture } from './flux-dev';
import { deepseekV3Fixture } from './fp8-deepseek-v3';
import { headerFromSpecs, inputFromFixture, type ModelFixture } from './header-from-specs';
import { kohyaSd15Fixture } from './lora';
import { mlxLlama32Fixture } from './mlx-llama32-1b';

function parsed(fixture: ModelFixture): ParsedHeader {
  const metadata = fixture.metadata === undefined ? undefined : fixture.metadata;
  const { head, dataLength } = buildHeaderBytes(fixture.specs, { metadata });
  const outcome = parseFileHead(head, head.length + dataLength);
  if (outcome.kind !== 'parsed') {
    throw new Error('parser rejected the fixture');
  }
  return outcome.header;
}

const FIXTURES: Array<[string, () => ModelFixture]> = [
  ['DeepSeek-V3 FP8', deepseekV3Fixture],
  ['FLUX int8 ConvRot', fluxInt8ConvrotFixture],
  ['MLX Llama-3.2-1B', () => mlxLlama32Fixture()],
  ['kohya LoRA', () => kohyaSd15Fixture()],
];

describe('headerFromSpecs vs the real parser', () => {
  it.each(FIXTURES)('%s: identical columns and metadata', (_, build) => {
    const fixture = build();
    const real = parsed(fixture);
    const mine = headerFromSpecs(fixture.specs, { metadata: fixture.metadata });
    for (const key of [
      'count',
      'nameBytes',
      'nameStarts',
      'dtype',
      'shapeStarts',
      'dims',
      'begin',
      'end',
      'elements',
    ] as const) {
      expect(mine.tensors[key], key).toEqual(real.tensors[key]);
    }
    expect(mine.metadata).toEqual(real.metadata);
    expect(mine.metadataState).toBe(real.metadataState);
    expect(mine.dataBytes).toBe(real.dataBytes);
  });

  it.each(FIXTURES)('%s: identical analysis results', (_, build) => {
    const fixture = build();
    const input = inputFromFixture(fixture);
    const header = parsed(fixture);
    const fromParser = runAnalyses({ ...input, header, names: allTensorNames(header.tensors) });
    expect(fromParser).toEqual(runAnalyses(input));
  });
});
