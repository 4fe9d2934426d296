/**
 * A pickle stack machine for protocols 0–5 that never executes anything. GLOBAL/STACK_GLOBAL push the two strings
 * they name; REDUCE, NEWOBJ, INST, OBJ and BUILD record calls as data. Every global is counted with the byte offset
 * of its first use, so the safety classifier (safety.ts) can judge the file without importing a thing.
 *
 * Cost is linear in the input: every opcode consumes at least one byte and does O(1) work, except the MARK-collecting
 * opcodes, which move items that each cost a byte to push. Strings, long integers and text lines are bounded by the
 * named limits in checkpoint-limits.ts, so a hostile pickle costs bounded time and memory.
 */
import { stringDecoder } from '../../bytes/string-decoder';
import { MAX_KEPT_STRING_BYTES, MAX_LINE_BYTES, MAX_LONG_BYTES } from './checkpoint-limits';
import type { PyCall, PyDict, PyGlobal, PyValue } from './pickle-values';

/** Opcode names by byte (CPython Lib/pickletools.py), for counts in the report and for tests. */
export const OPCODE_NAMES: Readonly<Record<number, string>> = {
  0x80: 'PROTO',
  0x95: 'FRAME',
  0x2e: 'STOP',
  0x28: 'MARK',
  0x63: 'GLOBAL',
  0x93: 'STACK_GLOBAL',
  0x69: 'INST',
  0x6f: 'OBJ',
  0x52: 'REDUCE',
  0x62: 'BUILD',
  0x81: 'NEWOBJ',
  0x92: 'NEWOBJ_EX',
  0x50: 'PERSID',
  0x51: 'BINPERSID',
  0x4a: 'BININT',
  0x4b: 'BININT1',
  0x4d: 'BININT2',
  0x49: 'INT',
  0x8a: 'LONG1',
  0x8b: 'LONG4',
  0x4c: 'LONG',
  0x47: 'BINFLOAT',
  0x46: 'FLOAT',
  0x4e: 'NONE',
  0x88: 'NEWTRUE',
  0x89: 'NEWFALSE',
  0x58: 'BINUNICODE',
  0x8c: 'SHORT_BINUNICODE',
  0x8d: 'BINUNICODE8',
  0x56: 'UNICODE',
  0x53: 'STRING',
  0x54: 'BINSTRING',
  0x55: 'SHORT_BINSTRING',
  0x42: 'BINBYTES',
  0x43: 'SHORT_BINBYTES',
  0x8e: 'BINBYTES8',
  0x96: 'BYTEARRAY8',
  0x97: 'NEXT_BUFFER',
  0x98: 'READONLY_BUFFER',
  0x29: 'EMPTY_TUPLE',
  0x74: 'TUPLE',
  0x85: 'TUPLE1',
  0x86: 'TUPLE2',
  0x87: 'TUPLE3',
  0x5d: 'EMPTY_LIST',
  0x6c: 'LIST',
  0x61: 'APPEND',
  0x65: 'APPENDS',
  0x7d: 'EMPTY_DICT',
  0x64: 'DICT',
  0x73: 'SETITEM',
  0x75: 'SETITEMS',
  0x8f: 'EMPTY_SET',
  0x90: 'ADDITEMS',
  0x91: 'FROZENSET',
  0x30: 'POP',
  0x31: 'POP_MARK',
  0x32: 'DUP',
  0x67: 'GET',
  0x68: 'BINGET',
  0x6a: 'LONG_BINGET',
  0x70: 'PUT',
  0x71: 'BINPUT',
  0x72: 'LONG_BINPUT',
  0x94: 'MEMOIZE',
  0x82: 'EXT1',
  0x83: 'EXT2',
  0x84: 'EXT4',
};

export interface GlobalUse {
  module: string;
  name: string;
  count: number;
  /** Byte offset (in the input) of the first opcode that named it. */
  offset: number;
}

/** A shape that only an exploit needs: an import name computed at load time, BUILD on a module, EXT codes. */
export interface StructuralHazard {
  reason: string;
  offset: number;
}

export interface PickleRun {
  /** The value STOP returned; undefined when the pickle did not reach STOP. */
  root: PyValue | undefined;
  complete: boolean;
  /** Offset just after STOP, or where the machine stopped. */
  end: number;
  /** Why the machine stopped early; `needMoreBytes` when the input simply ended mid-pickle. */
  error?: { reason: string; offset: number; needMoreBytes: boolean };
  protocol: number;
  opcodeCounts: Map<string, number>;
  globals: Map<string, GlobalUse>;
  hazards: StructuralHazard[];
  persistentIds: number;
}

/** Turns a call into a value: torch-rebuild.ts recognises tensor rebuilds here. Returns undefined to keep the call. */
export type ReduceHook = (callee: PyValue, args: PyValue[], offset: number) => PyValue | undefined;

/** Sees every call the pickle asks for that stays a call (not a tensor rebuild or an empty dict/set), as data. */
export type CallObserver = (call: PyCall, offset: number) => void;

class Stop extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
    readonly needMoreBytes = false,
  ) {
    super(reason);
  }
}

const NL = 0x0a;
/** Strings up to this length are tried as plain ASCII before a TextDecoder is used. */
const SHORT_ASCII_MAX = 64;
const latin1 = new TextDecoder('latin1');

/** Globals that rebuild as a plain dict or set, so SETITEMS/ADDITEMS land somewhere readable. */
const DICT_CLASSES = new Set(['collections.OrderedDict', 'builtins.dict', 'collections.defaultdict']);
const SET_CLASSES = new Set(['builtins.set', 'builtins.frozenset']);

/** Python 2 names torch and pickle normalise (`_compat_pickle`), so `__builtin__.eval` is judged as `builtins.eval`. */
const MODULE_ALIASES: Readonly<Record<string, string>> = {
  __builtin__: 'builtins',
  copy_reg: 'copyreg',
  exceptions: 'builtins',
  cPickle: 'pickle',
  commands: 'subprocess',
  UserDict: 'collections',
};

function normaliseModule(module: string): string {
  return MODULE_ALIASES[module] ?? module;
}

export function runPickle(bytes: Uint8Array, start = 0, onReduce?: ReduceHook, onCall?: CallObserver): PickleRun {
  const machine = new Machine(bytes, start, onReduce, onCall);
  return machine.run();
}

class Machine {
  private pos: number;
  private stack: PyValue[] = [];
  private marks: number[] = [];
  /** Memo indices are dense in real pickles (0, 1, 2…), so an array; hostile sparse indices make it a dictionary. */
  private memo: Array<PyValue | undefined> = [];
  private memoSize = 0;
  private readonly view: DataView;
  private readonly counts = new Uint32Array(256);
  private readonly globals = new Map<string, GlobalUse>();
  private readonly hazards: StructuralHazard[] = [];
  private persistentIds = 0;
  private protocol = 0;

  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private readonly onReduce: ReduceHook | undefined,
    private readonly onCall: CallObserver | undefined,
  ) {
    this.pos = start;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  run(): PickleRun {
    let root: PyValue | undefined;
    let error: PickleRun['error'];
    try {
      root = this.loop();
    } catch (caught) {
      if (!(caught instanceof Stop)) {
        throw caught;
      }
      error = { reason: caught.reason, offset: caught.offset, needMoreBytes: caught.needMoreBytes };
    }
    const opcodeCounts = new Map<string, number>();
    this.counts.forEach((count, byte) => {
      if (count > 0) {
        opcodeCounts.set(OPCODE_NAMES[byte] ?? `0x${byte.toString(16).padStart(2, '0')}`, count);
      }
    });
    return {
      root,
      complete: error === undefined,
      end: this.pos,
      error,
      protocol: this.protocol,
      opcodeCounts,
      globals: this.globals,
      hazards: this.hazards,
      persistentIds: this.persistentIds,
    };
  }

  private loop(): PyValue {
    const bytes = this.bytes;
    for (;;) {
      if (this.pos >= bytes.length) {
        throw new Stop('the pickle ends before its STOP opcode', this.pos, true);
      }
      const at = this.pos;
      const op = bytes[this.pos++];
      this.counts[op]++;
      switch (op) {
        case 0x80: // PROTO
          this.protocol = this.u8();
          if (this.protocol > 5) {
            throw new Stop(`unsupported pickle protocol ${this.protocol}`, at);
          }
          break;
        case 0x95: // FRAME: a transport hint; the bytes that follow are ordinary opcodes
          this.need(8);
          this.pos += 8;
          break;
        case 0x2e: // STOP
          return this.pop(at);
        case 0x28: // MARK
          this.marks.push(this.stack.length);
          break;
        case 0x63: {
          // GLOBAL
          const module = this.line(at);
          const name = this.line(at);
          this.stack.push(this.global(module, name, at));
          break;
        }
        case 0x93: {
          // STACK_GLOBAL
          const name = this.pop(at);
          const module = this.pop(at);
          if (typeof module !== 'string' || typeof name !== 'string') {
            this.hazards.push({ reason: 'STACK_GLOBAL with an import name that is not a literal string', offset: at });
            this.stack.push(this.global('?', '?', at));
          } else {
            this.stack.push(this.global(module, name, at));
          }
          break;
        }
        case 0x69: {
          // INST: module\nname\n, then the MARKed arguments
          const module = this.line(at);
          const name = this.line(at);
          const args = this.popMark(at);
          this.stack.push(this.call(this.global(module, name, at), args, 'inst', at));
          break;
        }
        case 0x6f: {
          // OBJ: MARK cls args…
          const items = this.popMark(at);
          if (items.length === 0) {
            throw new Stop('OBJ without a class', at);
          }
          this.stack.push(this.call(items[0], items.slice(1), 'obj', at));
          break;
        }
        case 0x52: {
          // REDUCE
          const args = this.pop(at);
          const callee = this.pop(at);
          this.stack.push(this.call(callee, tupleItems(args), 'reduce', at));
          break;
        }
        case 0x81: {
          // NEWOBJ
          const args = this.pop(at);
          const cls = this.pop(at);
          this.stack.push(this.call(cls, tupleItems(args), 'newobj', at));
          break;
        }
        case 0x92: {
          // NEWOBJ_EX
          const kwargs = this.pop(at);
          const args = this.pop(at);
          const cls = this.pop(at);
          this.stack.push(this.call(cls, [...tupleItems(args), kwargs], 'newobj', at));
          break;
        }
        case 0x62: {
          // BUILD
          const state = this.pop(at);
          const target = this.top(at);
          if (typeof target === 'object' && target !== null) {
            if (target.kind === 'call') {
              target.state = state;
            } else if (target.kind === 'global') {
              this.hazards.push({
                reason: `BUILD on ${target.module}.${target.name} itself (a module or class): it can overwrite attributes that later imports resolve to`,
                offset: at,
              });
            }
          }
          break;
        }
        case 0x50: // PERSID
          this.persistentIds++;
          this.stack.push({ kind: 'persid', id: this.line(at) });
          break;
        case 0x51: // BINPERSID
          this.persistentIds++;
          this.stack.push({ kind: 'persid', id: this.pop(at) });
          break;
        case 0x4a: // BININT
          this.need(4);
          this.stack.push(this.view.getInt32(this.pos, true));
          this.pos += 4;
          break;
        case 0x4b: // BININT1
          this.stack.push(this.u8());
          break;
        case 0x4d: // BININT2
          this.need(2);
          this.stack.push(this.view.getUint16(this.pos, true));
          this.pos += 2;
          break;
        case 0x49: {
          // INT (protocol 0; "01"/"00" are booleans)
          const text = this.line(at);
          this.stack.push(text === '01' ? true : text === '00' ? false : parseIntText(text, at));
          break;
        }
        case 0x4c: // LONG
          this.stack.push(parseIntText(this.line(at).replace(/L$/, ''), at));
          break;
        case 0x8a: // LONG1
          this.stack.push(this.long(this.u8()));
          break;
        case 0x8b: {
          // LONG4
          this.need(4);
          const length = this.view.getInt32(this.pos, true);
          this.pos += 4;
          if (length < 0) {
            throw new Stop('LONG4 with a negative length', at);
          }
          this.stack.push(this.long(length));
          break;
        }
        case 0x47: // BINFLOAT: big-endian
          this.need(8);
          this.stack.push(this.view.getFloat64(this.pos, false));
          this.pos += 8;
          break;
        case 0x46: // FLOAT
          this.stack.push(Number.parseFloat(this.line(at)));
          break;
        case 0x4e: // NONE
          this.stack.push(null);
          break;
        case 0x88: // NEWTRUE
          this.stack.push(true);
          break;
        case 0x89: // NEWFALSE
          this.stack.push(false);
          break;
        case 0x58: // BINUNICODE
          this.stack.push(this.text(this.u32(), stringDecoder));
          break;
        case 0x8c: // SHORT_BINUNICODE
          this.stack.push(this.text(this.u8(), stringDecoder));
          break;
        case 0x8d: // BINUNICODE8
          this.stack.push(this.text(this.u64(at), stringDecoder));
          break;
        case 0x56: // UNICODE: raw-unicode-escape text line
          this.stack.push(unescapeRawUnicode(this.line(at)));
          break;
        case 0x53: // STRING: a quoted repr on one line
          this.stack.push(unquote(this.line(at)));
          break;
        case 0x54: {
          // BINSTRING
          this.need(4);
          const length = this.view.getInt32(this.pos, true);
          this.pos += 4;
          if (length < 0) {
            throw new Stop('BINSTRING with a negative length', at);
          }
          this.stack.push(this.text(length, latin1));
          break;
        }
        case 0x55: // SHORT_BINSTRING
          this.stack.push(this.text(this.u8(), latin1));
          break;
        case 0x42: // BINBYTES
          this.stack.push(this.skipBytes(this.u32()));
          break;
        case 0x43: // SHORT_BINBYTES
          this.stack.push(this.skipBytes(this.u8()));
          break;
        case 0x8e: // BINBYTES8
        case 0x96: // BYTEARRAY8
          this.stack.push(this.skipBytes(this.u64(at)));
          break;
        case 0x97: // NEXT_BUFFER: out-of-band data the file does not contain
          this.stack.push({ kind: 'opaque', label: 'out-of-band buffer' });
          break;
        case 0x98: // READONLY_BUFFER
          this.top(at);
          break;
        case 0x29: // EMPTY_TUPLE
          this.stack.push({ kind: 'tuple', items: [] });
          break;
        case 0x74: // TUPLE
          this.stack.push({ kind: 'tuple', items: this.popMark(at) });
          break;
        case 0x85: // TUPLE1
          this.stack.push({ kind: 'tuple', items: [this.pop(at)] });
          break;
        case 0x86: {
          // TUPLE2
          const b = this.pop(at);
          const a = this.pop(at);
          this.stack.push({ kind: 'tuple', items: [a, b] });
          break;
        }
        case 0x87: {
          // TUPLE3
          const c = this.pop(at);
          const b = this.pop(at);
          const a = this.pop(at);
          this.stack.push({ kind: 'tuple', items: [a, b, c] });
          break;
        }
        case 0x5d: // EMPTY_LIST
          this.stack.push({ kind: 'list', items: [] });
          break;
        case 0x6c: // LIST
          this.stack.push({ kind: 'list', items: this.popMark(at) });
          break;
        case 0x61: {
          // APPEND
          const item = this.pop(at);
          this.append(this.top(at), [item], at);
          break;
        }
        case 0x65: {
          // APPENDS
          const items = this.popMark(at);
          this.append(this.top(at), items, at);
          break;
        }
        case 0x7d: // EMPTY_DICT
          this.stack.push({ kind: 'dict', entries: [] });
          break;
        case 0x64: {
          // DICT
          const items = this.popMark(at);
          this.stack.push({ kind: 'dict', entries: pairs(items, at) });
          break;
        }
        case 0x73: {
          // SETITEM
          const value = this.pop(at);
          const key = this.pop(at);
          this.setItems(this.top(at), [[key, value]], at);
          break;
        }
        case 0x75: {
          // SETITEMS
          const items = this.popMark(at);
          this.setItems(this.top(at), pairs(items, at), at);
          break;
        }
        case 0x8f: // EMPTY_SET
          this.stack.push({ kind: 'set', items: [] });
          break;
        case 0x90: {
          // ADDITEMS
          const items = this.popMark(at);
          const target = this.top(at);
          if (typeof target !== 'object' || target === null || target.kind !== 'set') {
            throw new Stop('ADDITEMS on something that is not a set', at);
          }
          pushAll(target.items, items);
          break;
        }
        case 0x91: // FROZENSET
          this.stack.push({ kind: 'set', items: this.popMark(at) });
          break;
        case 0x30: // POP: with nothing above the last mark, Python pops the mark itself
          if (this.marks.length > 0 && this.stack.length === this.marks[this.marks.length - 1]) {
            this.marks.pop();
          } else {
            this.pop(at);
          }
          break;
        case 0x31: // POP_MARK
          this.popMark(at);
          break;
        case 0x32: // DUP
          this.stack.push(this.top(at));
          break;
        case 0x67: // GET
          this.stack.push(this.memoGet(parseIntText(this.line(at), at), at));
          break;
        case 0x68: // BINGET
          this.stack.push(this.memoGet(this.u8(), at));
          break;
        case 0x6a: // LONG_BINGET
          this.stack.push(this.memoGet(this.u32(), at));
          break;
        case 0x70: // PUT
          this.memoPut(Number(parseIntText(this.line(at), at)), this.top(at));
          break;
        case 0x71: // BINPUT
          this.memoPut(this.u8(), this.top(at));
          break;
        case 0x72: // LONG_BINPUT
          this.memoPut(this.u32(), this.top(at));
          break;
        case 0x94: // MEMOIZE
          this.memoPut(this.memoSize, this.top(at));
          break;
        case 0x82: // EXT1
        case 0x83: // EXT2
        case 0x84: {
          // EXT4: a global named by a number from copyreg's extension registry, invisible to a name scan
          const code = op === 0x82 ? this.u8() : op === 0x83 ? this.u16() : this.u32();
          this.hazards.push({ reason: `EXT opcode (extension code ${code}) names a global by number`, offset: at });
          this.stack.push(this.global('copyreg', `extension ${code}`, at));
          break;
        }
        default:
          throw new Stop(`unknown opcode 0x${op.toString(16).padStart(2, '0')}`, at);
      }
    }
  }

  private global(rawModule: string, name: string, offset: number): PyGlobal {
    const module = normaliseModule(rawModule);
    const key = `${module}\n${name}`;
    const use = this.globals.get(key);
    if (use) {
      use.count++;
    } else {
      this.globals.set(key, { module, name, count: 1, offset });
    }
    return { kind: 'global', module, name };
  }

  private call(callee: PyValue, args: PyValue[], via: PyCall['via'], offset: number): PyValue {
    if (typeof callee === 'object' && callee !== null && callee.kind === 'global' && args.length === 0) {
      const qualified = `${callee.module}.${callee.name}`;
      if (DICT_CLASSES.has(qualified)) {
        const dict: PyDict = { kind: 'dict', entries: [], cls: callee };
        return dict;
      }
      if (SET_CLASSES.has(qualified)) {
        return { kind: 'set', items: [] };
      }
    }
    if (via === 'reduce' && this.onReduce) {
      const rebuilt = this.onReduce(callee, args, offset);
      if (rebuilt !== undefined) {
        return rebuilt;
      }
    }
    const call: PyCall = { kind: 'call', callee, args, via };
    this.onCall?.(call, offset);
    return call;
  }

  private append(target: PyValue, items: PyValue[], at: number): void {
    if (typeof target === 'object' && target !== null) {
      if (target.kind === 'list') {
        pushAll(target.items, items);
        return;
      }
      if (target.kind === 'call') {
        pushAll((target.items ??= []), items);
        return;
      }
      if (target.kind === 'set') {
        pushAll(target.items, items);
        return;
      }
    }
    throw new Stop('APPEND to something that is not a list', at);
  }

  private setItems(target: PyValue, entries: Array<[PyValue, PyValue]>, at: number): void {
    if (typeof target === 'object' && target !== null) {
      if (target.kind === 'dict') {
        pushAll(target.entries, entries);
        return;
      }
      if (target.kind === 'call') {
        pushAll((target.entries ??= []), entries);
        return;
      }
    }
    throw new Stop('SETITEM on something that is not a dict', at);
  }

  private memoPut(key: number, value: PyValue): void {
    if (this.memo[key] === undefined) {
      this.memoSize++;
    }
    this.memo[key] = value;
  }

  private memoGet(key: number | bigint, at: number): PyValue {
    const index = Number(key);
    const value = Number.isSafeInteger(index) && index >= 0 ? this.memo[index] : undefined;
    if (value === undefined) {
      throw new Stop(`memo key ${key} was never stored`, at);
    }
    return value;
  }

  private pop(at: number): PyValue {
    const base = this.marks.length > 0 ? this.marks[this.marks.length - 1] : 0;
    if (this.stack.length <= base) {
      throw new Stop('stack underflow', at);
    }
    return this.stack.pop() as PyValue;
  }

  private top(at: number): PyValue {
    const base = this.marks.length > 0 ? this.marks[this.marks.length - 1] : 0;
    if (this.stack.length <= base) {
      throw new Stop('stack underflow', at);
    }
    return this.stack[this.stack.length - 1];
  }

  private popMark(at: number): PyValue[] {
    const mark = this.marks.pop();
    if (mark === undefined) {
      throw new Stop('an opcode needs a MARK that was never pushed', at);
    }
    return this.stack.splice(mark);
  }

  private need(length: number): void {
    if (this.pos + length > this.bytes.length) {
      throw new Stop('the pickle ends in the middle of an opcode', this.bytes.length, true);
    }
  }

  private u8(): number {
    this.need(1);
    return this.bytes[this.pos++];
  }

  private u16(): number {
    this.need(2);
    const value = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return value;
  }

  private u32(): number {
    this.need(4);
    const value = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return value;
  }

  private u64(at: number): number {
    this.need(8);
    const value = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new Stop('a length beyond 2^53', at);
    }
    return Number(value);
  }

  private line(at: number): string {
    const limit = Math.min(this.bytes.length, this.pos + MAX_LINE_BYTES);
    const end = this.bytes.indexOf(NL, this.pos);
    if (end < 0 || end >= limit) {
      if (limit === this.bytes.length && end < 0) {
        throw new Stop('the pickle ends in the middle of a text line', this.bytes.length, true);
      }
      throw new Stop(`a text line longer than ${MAX_LINE_BYTES} bytes`, at);
    }
    const text = latin1.decode(this.bytes.subarray(this.pos, end));
    this.pos = end + 1;
    return text.endsWith('\r') ? text.slice(0, -1) : text;
  }

  private text(length: number, decoder: TextDecoder): string {
    this.need(length);
    if (length <= SHORT_ASCII_MAX) {
      // Names, keys and 'storage'/'cpu' are short ASCII: building them directly skips a TextDecoder call each.
      let ascii = '';
      let i = this.pos;
      const end = this.pos + length;
      for (; i < end; i++) {
        const byte = this.bytes[i];
        if (byte >= 0x80) {
          break;
        }
        ascii += String.fromCharCode(byte);
      }
      if (i === end) {
        this.pos = end;
        return ascii;
      }
    }
    const kept = Math.min(length, MAX_KEPT_STRING_BYTES);
    const text = decoder.decode(this.bytes.subarray(this.pos, this.pos + kept));
    this.pos += length;
    return kept < length ? `${text}…` : text;
  }

  private skipBytes(length: number): PyValue {
    this.need(length);
    this.pos += length;
    return { kind: 'bytes', length };
  }

  private long(length: number): PyValue {
    this.need(length);
    if (length > MAX_LONG_BYTES) {
      this.pos += length;
      return { kind: 'opaque', label: `a ${length}-byte integer` };
    }
    let value = 0n;
    for (let i = length - 1; i >= 0; i--) {
      value = (value << 8n) | BigInt(this.bytes[this.pos + i]);
    }
    if (length > 0 && this.bytes[this.pos + length - 1] & 0x80) {
      value -= 1n << BigInt(length * 8);
    }
    this.pos += length;
    return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  }
}

function tupleItems(value: PyValue): PyValue[] {
  if (typeof value === 'object' && value !== null && (value.kind === 'tuple' || value.kind === 'list')) {
    return value.items;
  }
  return [value];
}

function pairs(items: PyValue[], at: number): Array<[PyValue, PyValue]> {
  if (items.length % 2 !== 0) {
    throw new Stop('a dict opcode with an odd number of items', at);
  }
  const result: Array<[PyValue, PyValue]> = [];
  for (let i = 0; i < items.length; i += 2) {
    result.push([items[i], items[i + 1]]);
  }
  return result;
}

/** push(...items) overflows the call stack for huge arrays; a loop does not. */
function pushAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) {
    target.push(item);
  }
}

function parseIntText(text: string, at: number): number | bigint {
  if (!/^[+-]?\d+$/.test(text.trim())) {
    throw new Stop(`not an integer: ${JSON.stringify(text.slice(0, 40))}`, at);
  }
  const big = BigInt(text.trim());
  return Number.isSafeInteger(Number(big)) ? Number(big) : big;
}

function unquote(text: string): string {
  const trimmed = text.trim();
  const quote = trimmed[0];
  if ((quote === "'" || quote === '"') && trimmed.endsWith(quote) && trimmed.length >= 2) {
    return trimmed.slice(1, -1).replace(/\\(.)/g, (_, escaped: string) => (escaped === 'n' ? '\n' : escaped));
  }
  return trimmed;
}

function unescapeRawUnicode(text: string): string {
  return text.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
