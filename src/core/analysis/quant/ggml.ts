/**
 * llama.cpp's GGUF quantization: each tensor is stored in one ggml block type (Q4_K, Q6_K, Q8_0, IQ2_XS, MXFP4, …),
 * its scales inside the blocks, so a tensor is a quantized module on its own and GGUF's shapes are already the
 * logical ones. `general.file_type` names the recipe (Q4_K_M mixes Q4_K and Q6_K); the tensors' own types are the
 * truth, and the evidence gives both. Block sizes and bytes: ggml's `type_traits` (core/dtypes.ts BLOCK_DTYPES).
 */
import { DTYPE_BITS_BY_CODE, DTYPE_BLOCK_ELEMENTS, DTYPE_NAMES, DTYPES } from '../../dtypes';
import { groupDigits, plural } from '../../number-format';
import { ModuleList } from './module-list';
import type { QuantDetector, QuantModule } from './quant-types';

/** First code of ggml's block types: they follow the safetensors dtypes in the code table. */
const FIRST_BLOCK_CODE = DTYPES.length;

/** The value bits a block type's name states (Q4_K → 4, IQ2_XXS → 2, MXFP4 → 4); null for the ternary TQ types. */
function nominalBits(type: string): number | null {
  const digits = /^I?Q(\d)_/.exec(type) ?? /^(?:MX|NV)FP(\d)$/.exec(type);
  return digits ? Number(digits[1]) : null;
}

export const ggmlDetector: QuantDetector = {
  family: 'ggml',
  detect(context) {
    const { index } = context;
    const columns = index.header.tensors;
    const modules: QuantModule[] = [];
    const elementsByCode = new Map<number, { tensors: number; elements: number }>();
    for (let row = 0; row < index.count; row++) {
      const code = columns.dtype[row];
      if (code < FIRST_BLOCK_CODE || DTYPE_BLOCK_ELEMENTS[code] <= 1 || context.claimed[row] === 1) {
        continue;
      }
      const elements = Number.isFinite(columns.elements[row]) ? columns.elements[row] : 0;
      modules.push({ name: index.names[row], weightRow: row, rows: [row], logicalParams: elements });
      const kept = elementsByCode.get(code) ?? { tensors: 0, elements: 0 };
      kept.tensors++;
      kept.elements += elements;
      elementsByCode.set(code, kept);
    }
    if (modules.length === 0) {
      return null;
    }
    const mix = [...elementsByCode.entries()].sort((a, b) => b[1].elements - a[1].elements);
    const quantizedElements = mix.reduce((sum, [, kept]) => sum + kept.elements, 0);
    const [dominantCode] = mix[0];
    const dominant = DTYPE_NAMES[dominantCode];
    const gguf = index.header.gguf;
    const evidence = [
      `${plural(modules.length, 'tensor')} stored in ggml block types, the scales inside each block: ` +
        mix
          .map(([code, kept]) => {
            const share = quantizedElements > 0 ? Math.round((kept.elements / quantizedElements) * 100) : 0;
            const bpw = DTYPE_BITS_BY_CODE[code].toFixed(2);
            return `${DTYPE_NAMES[code]} on ${plural(kept.tensors, 'tensor')} (${share}% of their elements, ${bpw} bits each)`;
          })
          .join(', '),
    ];
    if (gguf?.fileType != null) {
      evidence.push(
        `general.file_type ${groupDigits(gguf.fileType)}${gguf.fileTypeLabel ? `: llama.cpp's ${gguf.fileTypeLabel}` : ' (a value llama.cpp does not name)'}`,
      );
    }
    return {
      family: 'ggml',
      format: gguf?.fileTypeLabel ?? dominant,
      bits: nominalBits(dominant),
      groupSize: DTYPE_BLOCK_ELEMENTS[dominantCode],
      granularity: 'group',
      weightDtype: dominant,
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: 'high',
      evidence,
      findings: [],
    };
  },
};
