/** Finding codes raised by the model-insight analyses (quantization, architecture, LoRA, metadata). */
import type { Severity } from '../model';

export const INSIGHT_CODES = {} as const satisfies Record<string, { severity: Severity; refusedByReference: boolean; title: string }>;
