/**
 * What a pickle would run, written as Python-like text from the values the stack machine built (never run):
 * `posix.system('echo pwned')`, `getattr(builtins.__import__('os'), 'system')('id')`. Strings are written the way
 * Python's repr writes them (quotes, backslashes and control characters escaped), so the text is data to read, and
 * it is bounded: MAX_CALL_TEXT_CHARS characters, MAX_CALL_TEXT_DEPTH levels of nesting.
 */
import { MAX_CALL_TEXT_CHARS, MAX_CALL_TEXT_DEPTH } from './checkpoint-limits';
import type { PyCall, PyValue } from './pickle-values';

class Budget {
  text = '';
  full = false;

  write(part: string): void {
    if (this.full) {
      return;
    }
    if (this.text.length + part.length > MAX_CALL_TEXT_CHARS) {
      this.text += `${part.slice(0, MAX_CALL_TEXT_CHARS - this.text.length)}…`;
      this.full = true;
      return;
    }
    this.text += part;
  }
}

/** Python's repr of a str: single quotes unless the text holds one and no double quote; escapes as Python does. */
export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === quote || char === '\\') {
      out += `\\${char}`;
    } else if (char === '\n') {
      out += '\\n';
    } else if (char === '\r') {
      out += '\\r';
    } else if (char === '\t') {
      out += '\\t';
    } else if (code < 0x20 || code === 0x7f) {
      out += `\\x${code.toString(16).padStart(2, '0')}`;
    } else if ((code >= 0x80 && code < 0xa0) || (code >= 0x200b && code <= 0x200f) || code === 0xfeff) {
      // C1 controls and invisible format characters: shown as escapes so nothing in the text hides.
      out += code <= 0xff ? `\\x${code.toString(16)}` : `\\u${code.toString(16).padStart(4, '0')}`;
    } else {
      out += char;
    }
  }
  return out + quote;
}

function writeItems(items: readonly PyValue[], budget: Budget, depth: number): void {
  items.forEach((item, index) => {
    if (index > 0) {
      budget.write(', ');
    }
    writeValue(item, budget, depth);
  });
}

function writeValue(value: PyValue, budget: Budget, depth: number): void {
  if (budget.full) {
    return;
  }
  if (depth > MAX_CALL_TEXT_DEPTH) {
    budget.write('…');
    return;
  }
  if (value === null) {
    budget.write('None');
    return;
  }
  switch (typeof value) {
    case 'boolean':
      budget.write(value ? 'True' : 'False');
      return;
    case 'number':
    case 'bigint':
      budget.write(String(value));
      return;
    case 'string':
      budget.write(pythonRepr(value));
      return;
    default:
      break;
  }
  const next = depth + 1;
  switch (value.kind) {
    case 'global':
      budget.write(`${value.module}.${value.name}`);
      return;
    case 'call':
      writeValue(value.callee, budget, next);
      budget.write('(');
      writeItems(value.args, budget, next);
      budget.write(')');
      return;
    case 'list':
      budget.write('[');
      writeItems(value.items, budget, next);
      budget.write(']');
      return;
    case 'tuple':
      budget.write('(');
      writeItems(value.items, budget, next);
      budget.write(value.items.length === 1 ? ',)' : ')');
      return;
    case 'set':
      budget.write('{');
      writeItems(value.items, budget, next);
      budget.write('}');
      return;
    case 'dict':
      budget.write('{');
      value.entries.forEach(([key, item], index) => {
        budget.write(index > 0 ? ', ' : '');
        writeValue(key, budget, next);
        budget.write(': ');
        writeValue(item, budget, next);
      });
      budget.write('}');
      return;
    case 'bytes':
      budget.write(`<${value.length} bytes>`);
      return;
    case 'tensor':
      budget.write(`<tensor ${value.dtype} [${value.shape.join(', ')}]>`);
      return;
    case 'persid':
      budget.write('persistent_load(');
      writeValue(value.id, budget, next);
      budget.write(')');
      return;
    case 'opaque':
      budget.write(`<${value.label}>`);
      return;
  }
}

/** `callee(arg, …)` as text, at most MAX_CALL_TEXT_CHARS characters (a cut text ends in `…`). */
export function callText(call: PyCall): string {
  const budget = new Budget();
  writeValue(call, budget, 0);
  return budget.text;
}

/** Any value the machine built, as Python-like text under the same bounds (a DCP bytes entry: `12`, `{'step': 3}`). */
export function valueText(value: PyValue): string {
  const budget = new Budget();
  writeValue(value, budget, 0);
  return budget.text;
}
