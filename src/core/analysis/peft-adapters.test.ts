/**
 * Differential checks against PEFT itself, over the adapters scripts/peft-adapter-fixtures.py saved
 * (fixtures/peft-adapters/: each method PEFT ships, wrapped around a small transformers model and saved with
 * save_pretrained, beside what PEFT's own tuner layers say). For each: the method, the modules it adapted, their
 * ranks and scaling, the parameters and whole tensors the file holds, and no warning about a file PEFT wrote itself.
 */
import { describe, expect, it } from 'vitest';
import { analyzeSavedHeader, savedHeaderRecords, type SavedHeader } from '../../testing/saved-headers';
import type { LoraFamily } from './report-sections';

interface PeftFixture {
  case: string;
  header: SavedHeader;
  adapterConfig: Record<string, unknown>;
  expected: {
    peftType: string;
    modules: number;
    ranks: Record<string, number>;
    scaling: Record<string, number>;
    dora: boolean;
    savedParams: number;
    fullTensors: number;
    /** Prompt learning's virtual tokens; absent for the methods that adapt modules. */
    virtualTokens?: number;
  };
}

/** The family each PEFT method is reported as (LoHa and LoKr are LyCORIS's algorithms, which PEFT implements). */
const FAMILY_OF_METHOD: Readonly<Record<string, LoraFamily>> = {
  LORA: 'peft',
  LOHA: 'lycoris-loha',
  LOKR: 'lycoris-lokr',
  IA3: 'peft-ia3',
  OFT: 'peft-oft',
  BOFT: 'peft-boft',
  VERA: 'peft-vera',
  ADALORA: 'peft-adalora',
  PROMPT_TUNING: 'peft-prompt-tuning',
  PREFIX_TUNING: 'peft-prefix-tuning',
  P_TUNING: 'peft-p-tuning',
};

function analyze(fixture: PeftFixture, withConfig: boolean) {
  return analyzeSavedHeader(
    fixture.header,
    'adapter_model.safetensors',
    withConfig ? { adapterConfig: fixture.adapterConfig } : {},
  );
}

/** The scaling most modules get, as PEFT's layers hold it. */
function commonScaling(scaling: Record<string, number>): number | null {
  const entries = Object.entries(scaling).sort((a, b) => b[1] - a[1]);
  return entries.length > 0 ? Number(entries[0][0]) : null;
}

const all = savedHeaderRecords<PeftFixture>('peft-adapters');

describe('PEFT adapters, each saved by PEFT itself', () => {
  it('covers every method the script saves', () => {
    expect(new Set(all.map((fixture) => fixture.expected.peftType))).toEqual(new Set(Object.keys(FAMILY_OF_METHOD)));
  });

  describe.each(all.map((fixture) => [fixture.case, fixture] as const))('%s', (_, fixture) => {
    const { expected } = fixture;
    const family = expected.dora ? 'peft-dora' : FAMILY_OF_METHOD[expected.peftType];
    const promptLearning = expected.virtualTokens !== undefined;

    it('names the method and PEFT, with or without adapter_config.json', () => {
      for (const withConfig of [true, false]) {
        const lora = analyze(fixture, withConfig).sections.lora;
        // Prompt tuning, prefix tuning and P-tuning save the same tensor name: only the config tells them apart.
        expect(lora?.family).toBe(promptLearning && !withConfig ? 'peft-prompt-learning' : family);
        expect(lora?.naming).toBe('peft');
      }
    });

    it.skipIf(!promptLearning)('counts the virtual tokens prompt learning learned', () => {
      for (const withConfig of [true, false]) {
        const { sections } = analyze(fixture, withConfig);
        expect(sections.lora?.promptEmbedding?.virtualTokens).toBe(expected.virtualTokens);
        // An adapter is no model: no architecture or memory estimate for it.
        expect(sections.architecture).toBeUndefined();
        expect(sections.memory).toBeUndefined();
      }
    });

    it('counts the modules PEFT adapted, the parameters and the whole tensors it saved', () => {
      const lora = analyze(fixture, true).sections.lora;
      expect(lora?.modules).toBe(expected.modules);
      expect(lora?.adapterParams).toBe(expected.savedParams);
      expect(lora?.fullTensors).toBe(expected.fullTensors);
    });

    // LoKr saves a part whole when the rank would not make it smaller: its file holds no rank to read.
    const fileHoldsRanks = Object.keys(expected.ranks).length > 0 && expected.peftType !== 'LOKR';
    // LoRA on packed expert parameters stacks r × experts rows: only the config's r splits them.
    const packedExperts = Array.isArray(fixture.adapterConfig.target_parameters);
    it('reads each module’s rank as PEFT’s layers hold it', () => {
      for (const withConfig of packedExperts ? [true] : [true, false]) {
        const lora = analyze(fixture, withConfig).sections.lora;
        expect(lora?.ranks).toEqual(fileHoldsRanks || promptLearning ? expected.ranks : { full: expected.modules });
      }
    });

    const scaling = commonScaling(expected.scaling);
    it.skipIf(scaling === null)('scales the update as PEFT does', () => {
      expect(analyze(fixture, true).sections.lora?.scale).toBe(scaling);
    });

    it.skipIf(!packedExperts)('names the expert parameters it adapts', () => {
      const targets = analyze(fixture, true).sections.lora?.targets ?? [];
      const parameters = (fixture.adapterConfig.target_parameters as string[]).map((path) =>
        path.split('.').slice(-2).join('.'),
      );
      expect([...targets].sort()).toEqual(
        [...parameters, ...(fixture.adapterConfig.target_modules as string[])].sort(),
      );
    });

    it('finds nothing wrong with an adapter PEFT saved', () => {
      const { findings } = analyze(fixture, true);
      expect(findings.filter((finding) => finding.severity !== 'info').map((finding) => finding.message)).toEqual([]);
    });
  });
});
