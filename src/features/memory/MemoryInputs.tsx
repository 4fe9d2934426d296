/**
 * The Memory tab's inputs: context (with presets), batch, KV cache dtype and an optional GPU of the user's own.
 * Each number box says inline why an entry is not used and keeps the last valid figure (number-field.ts).
 */
import { useId } from 'react';
import type { CacheDtype, MemorySection } from '../../core/analysis/memory/memory-types';
import { groupDigits } from '../../core/number-format';
import type { NumberField, NumberRule } from './number-field';

/** Context lengths offered as one-click choices wherever a context is asked for. */
export const CONTEXT_PRESETS: ReadonlyArray<[string, number]> = [
  ['4k', 4096],
  ['8k', 8192],
  ['32k', 32768],
  ['128k', 131072],
];

/** Longest context the box accepts: far past any published model, short of numbers that stop meaning anything. */
export const MAX_CONTEXT_TOKENS = 100_000_000;
/** Most sequences at once: past any engine's max_num_seqs default (vLLM: 256 to 1024). */
const MAX_BATCH = 4096;
/** Below 4 GiB the stated 2 GiB overhead leaves a GPU almost nothing; 1 TiB is past any single GPU sold. */
const MIN_GPU_GIB = 4;
const MAX_GPU_GIB = 1024;

/**
 * Why the model's longest context is not known. params.json seldom gives one; vLLM then assumes 128,000 tokens
 * (its Mistral format adapter), which is an engine default, not the model's.
 */
function unknownMaximumReason(config: MemorySection['config']): string {
  if (config === 'config.json') {
    return 'config.json has no max_position_embeddings';
  }
  if (config === 'params.json') {
    return 'params.json gives none; vLLM assumes 128,000 tokens';
  }
  return 'needs config.json';
}

export const TOKENS_RULE: NumberRule = {
  subject: 'The context',
  unit: ['token', 'tokens'],
  min: 1,
  max: MAX_CONTEXT_TOKENS,
  integer: true,
};
export const BATCH_RULE: NumberRule = {
  subject: 'The batch',
  unit: ['sequence', 'sequences'],
  min: 1,
  max: MAX_BATCH,
  integer: true,
};
export const GPU_RULE: NumberRule = {
  subject: 'GPU memory',
  unit: ['GiB', 'GiB'],
  min: MIN_GPU_GIB,
  max: MAX_GPU_GIB,
  integer: false,
  optional: true,
};

const CACHE_DTYPES: ReadonlyArray<[CacheDtype, string]> = [
  ['bf16', 'bf16 (2 B)'],
  ['fp16', 'fp16 (2 B)'],
  ['fp8', 'fp8 (1 B)'],
];

/** A number box; its error message is rendered below the row of inputs (InputErrors), so the row never reflows. */
function NumberBox({
  label,
  field,
  rule,
  testId,
  errorId,
  placeholder,
}: {
  label: string;
  field: NumberField;
  rule: NumberRule;
  testId: string;
  errorId: string;
  placeholder?: string;
}) {
  return (
    <label className="memory-number">
      {label}
      <input
        type="number"
        inputMode={rule.integer ? 'numeric' : 'decimal'}
        min={rule.min}
        max={rule.max}
        step={rule.integer ? 1 : 'any'}
        value={field.text}
        placeholder={placeholder}
        aria-invalid={field.error !== null}
        aria-describedby={field.error !== null ? errorId : undefined}
        data-testid={testId}
        onChange={(event) => field.onText(event.target.value)}
      />
    </label>
  );
}

/**
 * The context presets and the model's maximum as one more; a model without a cache (an encoder) reads at most its
 * position limit, so it gets none past it.
 */
export function contextPresets(maxContext: number | null, cacheless: boolean): Array<[string, number]> {
  const presets = CONTEXT_PRESETS.filter(([, value]) => !cacheless || maxContext === null || value <= maxContext);
  if (maxContext !== null && !presets.some(([, value]) => value === maxContext)) {
    presets.push([`max ${groupDigits(maxContext)}`, maxContext]);
  }
  return presets;
}

export function MemoryInputs(props: {
  section: MemorySection;
  tokens: NumberField;
  batch: NumberField;
  ownGpu: NumberField;
  cacheDtype: CacheDtype;
  onCacheDtype: (value: CacheDtype) => void;
}) {
  const { section, tokens } = props;
  const idPrefix = useId();
  const boxes = [
    { field: tokens, testId: 'memory-tokens' },
    { field: props.batch, testId: 'memory-batch' },
    { field: props.ownGpu, testId: 'memory-own-gpu' },
  ];
  const errorId = (testId: string) => `${idPrefix}-${testId}-error`;
  const encoder = section.kv?.attention === 'encoder';
  const presets = contextPresets(section.maxContext, encoder);
  return (
    <>
      <div className="memory-inputs">
        <NumberBox
          label="Context (tokens)"
          field={tokens}
          rule={TOKENS_RULE}
          testId="memory-tokens"
          errorId={errorId('memory-tokens')}
        />
        <span className="memory-presets" role="group" aria-label="Context presets">
          {presets.map(([label, value]) => (
            <button
              key={label}
              type="button"
              aria-pressed={tokens.error === null && tokens.value === value}
              onClick={() => tokens.set(value)}
            >
              {label}
            </button>
          ))}
        </span>
        <NumberBox
          label="Batch (sequences)"
          field={props.batch}
          rule={BATCH_RULE}
          testId="memory-batch"
          errorId={errorId('memory-batch')}
        />
        {!encoder && (
          <label>
            KV cache dtype
            <select
              value={props.cacheDtype}
              data-testid="memory-cache-dtype"
              onChange={(event) => props.onCacheDtype(event.target.value as CacheDtype)}
            >
              {CACHE_DTYPES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
        )}
        <NumberBox
          label="Your GPU (GiB, optional)"
          field={props.ownGpu}
          rule={GPU_RULE}
          testId="memory-own-gpu"
          errorId={errorId('memory-own-gpu')}
          placeholder="e.g. 32"
        />
        <span className="memory-max" data-testid="memory-max">
          {section.maxContext !== null
            ? `Model maximum: ${groupDigits(section.maxContext)} tokens (${section.maxContextSource ?? section.config})`
            : `Model maximum: unknown (${unknownMaximumReason(section.config)})`}
        </span>
      </div>
      {boxes.some((box) => box.field.error !== null) && (
        <ul className="memory-input-errors" role="alert">
          {boxes.map(
            (box) =>
              box.field.error !== null && (
                <li key={box.testId} id={errorId(box.testId)} data-testid={`${box.testId}-error`}>
                  {box.field.error}
                </li>
              ),
          )}
        </ul>
      )}
    </>
  );
}
