/**
 * The Memory tab's number boxes (context, batch, GPU memory): what the user typed is kept as typed, checked, and
 * only a valid entry changes the figure the estimate uses. An invalid one shows why and leaves the last valid
 * figure in place: never a silent clamp.
 */
import { useCallback, useState } from 'react';
import { plural } from '../../core/number-format';

export interface NumberRule {
  /** What the box holds, for the messages: "The context", "The batch". */
  subject: string;
  /** The unit, singular and plural: ['token', 'tokens']. */
  unit: readonly [string, string];
  min: number;
  max: number;
  /** Whole numbers only (tokens, sequences); GPU memory may have decimals. */
  integer: boolean;
  /** A blank box means "none" (an optional GPU), not an error. */
  optional?: boolean;
}

export type ParsedNumber = { ok: true; value: number | null } | { ok: false; message: string };

const amount = (value: number, rule: NumberRule) => plural(value, rule.unit[0], rule.unit[1]);

export function parseNumber(text: string, rule: NumberRule): ParsedNumber {
  const trimmed = text.trim();
  if (trimmed === '') {
    return rule.optional ? { ok: true, value: null } : { ok: false, message: `Enter ${rule.subject.toLowerCase()}.` };
  }
  const value = Number(trimmed);
  if (!Number.isFinite(value)) {
    return { ok: false, message: `${rule.subject} must be a number of ${rule.unit[1]}.` };
  }
  if (rule.integer && !Number.isInteger(value)) {
    return { ok: false, message: `${rule.subject} must be a whole number of ${rule.unit[1]}.` };
  }
  if (value < rule.min) {
    return { ok: false, message: `${rule.subject} must be at least ${amount(rule.min, rule)}.` };
  }
  if (value > rule.max) {
    return { ok: false, message: `${rule.subject} can be at most ${amount(rule.max, rule)}.` };
  }
  return { ok: true, value };
}

export interface NumberField {
  text: string;
  /** The last valid value (null: an optional box left blank). */
  value: number | null;
  /** Why the text is not used, with the figure shown instead; null when it is valid. */
  error: string | null;
  onText: (text: string) => void;
  /** Sets a valid value from elsewhere (a preset button). */
  set: (value: number) => void;
}

export function useNumberField(initial: number | null, rule: NumberRule): NumberField {
  const [text, setText] = useState(initial === null ? '' : String(initial));
  const [value, setValue] = useState<number | null>(initial);
  const parsed = parseNumber(text, rule);
  const onText = useCallback(
    (next: string) => {
      setText(next);
      const checked = parseNumber(next, rule);
      if (checked.ok) {
        setValue(checked.value);
      }
    },
    [rule],
  );
  const set = useCallback((next: number) => {
    setText(String(next));
    setValue(next);
  }, []);
  const kept =
    value === null
      ? 'Nothing is compared until it is valid.'
      : `Showing the last valid figure: ${amount(value, rule)}.`;
  return {
    text,
    value,
    error: parsed.ok ? null : `${parsed.message} ${kept}`,
    onText,
    set,
  };
}
