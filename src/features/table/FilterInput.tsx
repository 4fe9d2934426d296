/**
 * The filter box of every table: substring or /regex/, sent after a pause in typing, Esc clears it. With
 * `slashFocuses`, `/` anywhere on the page (outside a text field) focuses it.
 */
import { useEffect, useRef, useState } from 'react';

/** Typing into a 250,000-row filter re-queries the worker; waiting for a pause keeps the worker queue short. */
const FILTER_DEBOUNCE_MS = 120;

interface FilterInputProps {
  /** The filter in effect. */
  value: string;
  onCommit: (text: string) => void;
  label: string;
  placeholder: string;
  invalid: boolean;
  slashFocuses?: boolean;
  /** Commit on every change (a filter over a few hundred rows on the page needs no pause). */
  immediate?: boolean;
}

export function FilterInput({
  value,
  onCommit,
  label,
  placeholder,
  invalid,
  slashFocuses,
  immediate,
}: FilterInputProps) {
  const [text, setText] = useState(value);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => setText(value), [value]);

  useEffect(() => {
    if (text === value || immediate) {
      return;
    }
    const timer = setTimeout(() => onCommit(text), FILTER_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, value, onCommit, immediate]);

  useEffect(() => {
    if (!slashFocuses) {
      return;
    }
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      const typing =
        target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable);
      if (event.key === '/' && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [slashFocuses]);

  return (
    <label className="filter-input">
      <span className="visually-hidden">{label}</span>
      <input
        ref={input}
        type="search"
        placeholder={placeholder}
        title={slashFocuses ? `${placeholder} · press / to focus, Esc to clear` : `${placeholder} · Esc clears`}
        aria-keyshortcuts={slashFocuses ? '/' : undefined}
        value={text}
        aria-invalid={invalid}
        onChange={(event) => {
          setText(event.target.value);
          if (immediate) {
            onCommit(event.target.value);
          }
        }}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            setText('');
            onCommit('');
          }
        }}
      />
      {slashFocuses && (
        <kbd className="filter-key" aria-hidden="true" title="Press / to focus the filter">
          /
        </kbd>
      )}
    </label>
  );
}
