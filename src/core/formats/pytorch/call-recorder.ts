/**
 * Keeps what a pickle would run: every call whose callable is a dangerous global (`posix.system`, `builtins.eval`)
 * or is itself computed while loading (`getattr(…)(…)`), with its arguments, as text (call-text.ts). A call used
 * only as the callable or an argument of a later recorded call is folded into it, so a nested payload reads as one
 * line. At most MAX_LISTED_CALLS are kept; the rest are counted.
 */
import { callText } from './call-text';
import { MAX_LISTED_CALLS, MAX_REMEMBERED_GLOBALS } from './checkpoint-limits';
import type { CallObserver } from './pickle-machine';
import type { PyCall, PyValue } from './pickle-values';
import { classifyGlobal } from './safety';

export interface RecordedCall {
  /** `posix.system('echo pwned')`: the callable and its arguments as Python-like text, bounded. */
  text: string;
  /** Byte offset of the opcode that asks for the call (REDUCE, NEWOBJ, INST, OBJ). */
  offset: number;
}

/**
 * Whether each global runs code, by `module\nname`: a pickle calls the same few classes over and over (a DCP
 * .metadata of 46,000 chunks makes ~200,000 calls of six), and classifying one walks the denylists each time.
 */
const dangerousByName = new Map<string, boolean>();

function runsCode(callee: PyValue): boolean {
  if (typeof callee === 'object' && callee !== null && callee.kind === 'global') {
    const key = `${callee.module}\n${callee.name}`;
    let dangerous = dangerousByName.get(key);
    if (dangerous === undefined) {
      dangerous = classifyGlobal(callee.module, callee.name).risk === 'dangerous';
      // A hostile pickle can name any number of globals: only the first few thousand are remembered.
      if (dangerousByName.size < MAX_REMEMBERED_GLOBALS) {
        dangerousByName.set(key, dangerous);
      }
    }
    return dangerous;
  }
  // Anything else called is computed at load time (a call's result, an attribute fetched by getattr…).
  return true;
}

export class CallRecorder {
  private readonly kept: Array<{ call: PyCall; offset: number }> = [];
  /** Every recorded call, kept or not (folded ones excluded). */
  total = 0;

  readonly observe: CallObserver = (call, offset) => {
    if (!runsCode(call.callee)) {
      return;
    }
    const parts = new Set<PyValue>([call.callee, ...call.args]);
    const before = this.kept.length;
    for (let index = this.kept.length - 1; index >= 0; index--) {
      if (parts.has(this.kept[index].call)) {
        this.kept.splice(index, 1);
      }
    }
    this.total -= before - this.kept.length;
    this.total++;
    if (this.kept.length < MAX_LISTED_CALLS) {
      this.kept.push({ call, offset });
    }
  };

  list(): RecordedCall[] {
    return this.kept.map(({ call, offset }) => ({ text: callText(call), offset }));
  }
}
