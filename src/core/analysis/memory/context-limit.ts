/**
 * The longest context a model takes, and the check of a chosen context against it. The limit is config.json's
 * position limit (`max_position_embeddings` or an alias) with its `rope_scaling`, derived the way vLLM derives
 * max_model_len (`_get_and_verify_max_len` in vllm/config): yarn reaches original_max_position_embeddings × factor,
 * linear and dynamic NTK scale the position limit by the factor, and llama3, longrope (su) and Gemma 3's scaling are
 * already part of max_position_embeddings. Past that limit vLLM refuses to start unless
 * VLLM_ALLOW_LONG_MAX_MODEL_LEN is set, and the positions were never trained.
 */
import { groupDigits } from '../../number-format';
import { asNumber, asString, isRecord } from '../values';
import type { MemorySection, RopeScaling } from './memory-types';

type Json = Record<string, unknown>;

/** rope types whose factor max_position_embeddings already includes (vLLM leaves the limit as it is). */
const SCALING_IN_POSITION_LIMIT = new Set(['llama3', 'longrope', 'su']);

/** Model types whose rope_scaling applies to some layers only and is already in max_position_embeddings. */
const GEMMA3 = /^gemma3/;

function ropeRecord(source: Json): Json | null {
  for (const key of ['rope_scaling', 'rope_parameters']) {
    const value = source[key];
    if (isRecord(value)) {
      // transformers 5 may key rope_parameters by layer type; the full-attention layers set the context.
      return isRecord(value.full_attention) ? value.full_attention : value;
    }
  }
  return null;
}

function positiveNumber(record: Json, key: string): number | null {
  const value = asNumber(record[key]);
  return value !== null && Number.isFinite(value) && value > 0 ? value : null;
}

/**
 * rope_scaling (or transformers 5's rope_parameters) from the text config or the root, or null when there is none
 * or it does not scale (the `default` type, a factor of 1, Qwen2-VL's mrope sections).
 */
export function readRopeScaling(
  text: Json,
  root: Json,
  modelType: string | null,
  positionLimit: number | null,
  positionField: string | null,
): RopeScaling | null {
  const rope = ropeRecord(text) ?? ropeRecord(root);
  if (rope === null) {
    return null;
  }
  const type = (asString(rope.rope_type) ?? asString(rope.type) ?? 'default').toLowerCase();
  const original =
    positiveNumber(rope, 'original_max_position_embeddings') ??
    positiveNumber(text, 'original_max_position_embeddings') ??
    positiveNumber(root, 'original_max_position_embeddings');
  const inLimit = SCALING_IN_POSITION_LIMIT.has(type) || GEMMA3.test(modelType ?? '');
  // Phi-3's longrope gives long_factor lists instead of one factor: the extension is the limit over the original.
  const factor =
    positiveNumber(rope, 'factor') ??
    (inLimit && original !== null && positionLimit !== null ? positionLimit / original : null);
  if (factor === null || factor === 1) {
    return null;
  }
  const field = positionField ?? 'max_position_embeddings';
  const factorText = groupDigits(Number(factor.toFixed(3)));
  let scaledContext: number | null = null;
  let formula: string;
  if (inLimit) {
    formula =
      `${type} rope_scaling (factor ${factorText}${original !== null ? `, original ${groupDigits(original)}` : ''}) ` +
      `is already part of ${field}${positionLimit !== null ? ` ${groupDigits(positionLimit)}` : ''}`;
  } else if (type === 'yarn' && original !== null) {
    scaledContext = Math.floor(original * factor);
    formula = `${type} rope_scaling: factor ${factorText} × original_max_position_embeddings ${groupDigits(original)} = ${groupDigits(scaledContext)}`;
  } else if (positionLimit !== null) {
    scaledContext = Math.floor(positionLimit * factor);
    formula = `${type} rope_scaling: ${field} ${groupDigits(positionLimit)} × factor ${factorText} = ${groupDigits(scaledContext)}`;
  } else {
    formula = `${type} rope_scaling, factor ${factorText}, but no position limit to scale`;
  }
  return { type, factor, originalContext: original, scaledContext, positionLimit, positionField, formula };
}

export interface ContextCheck {
  /** `warning`: past the model's maximum; `note`: within it, but only thanks to rope scaling. */
  level: 'warning' | 'note';
  message: string;
}

/** What to tell someone who asks for `tokens` of context; null when there is nothing to say (or no known maximum). */
export function checkContext(
  section: Pick<MemorySection, 'maxContext' | 'maxContextSource' | 'ropeScaling'>,
  tokens: number,
): ContextCheck | null {
  const { maxContext, ropeScaling: rope } = section;
  if (maxContext === null) {
    return null;
  }
  if (tokens > maxContext) {
    const rule =
      rope === null
        ? 'config.json has no rope_scaling: a longer context takes RoPE scaling (YaRN, linear) set in the config, ' +
          'and usually fine-tuning at that length.'
        : rope.scaledContext !== null
          ? 'That maximum already includes its rope_scaling.'
          : `Its ${rope.formula}.`;
    return {
      level: 'warning',
      message:
        `${groupDigits(tokens)} tokens is beyond this model's maximum context of ${groupDigits(maxContext)} tokens ` +
        `(${section.maxContextSource ?? 'config.json'}). Positions past it were never trained, and vLLM refuses a ` +
        `longer max_model_len unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set. ${rule}`,
    };
  }
  if (rope?.scaledContext != null && rope.positionLimit !== null && tokens > rope.positionLimit) {
    return {
      level: 'note',
      message:
        `${groupDigits(tokens)} tokens is past ${rope.positionField ?? 'max_position_embeddings'} ` +
        `(${groupDigits(rope.positionLimit)}): it relies on ${rope.formula}, which engines apply from config.json.`,
    };
  }
  return null;
}
