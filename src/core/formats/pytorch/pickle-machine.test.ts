import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { memoryReader } from '../../../testing/fuzz/memory-reader';
import { torchFixture } from '../../../testing/torch-fixtures';
import { OPCODE_NAMES, runPickle } from './pickle-machine';
import type { PyValue } from './pickle-values';
import { readCheckpoint, sniffCheckpoint } from './read-checkpoint';
import { rebuildTensors } from './torch-rebuild';

const enc = new TextEncoder();

/** Bytes from numbers and strings (strings as latin1/ASCII). */
function p(...parts: Array<number | string | number[]>): Uint8Array {
  const out: number[] = [];
  for (const part of parts) {
    if (typeof part === 'number') {
      out.push(part);
    } else if (typeof part === 'string') {
      out.push(...enc.encode(part));
    } else {
      out.push(...part);
    }
  }
  return new Uint8Array(out);
}

const le32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
const le64 = (n: number) => [...le32(n), 0, 0, 0, 0];
const str = (s: string) => [0x8c, s.length, ...enc.encode(s)];

function root(bytes: Uint8Array): PyValue | undefined {
  const run = runPickle(bytes);
  expect(run.error).toBeUndefined();
  return run.root;
}

const tuple = (...items: PyValue[]): PyValue => ({ kind: 'tuple', items });
const list = (...items: PyValue[]): PyValue => ({ kind: 'list', items });

describe('every opcode the machine handles', () => {
  const cases: Array<[string, Uint8Array, PyValue]> = [
    ['PROTO + NONE + STOP', p(0x80, 2, 'N.'), null],
    ['FRAME is skipped', p(0x80, 4, 0x95, le64(2), 'N.'), null],
    ['NEWTRUE / NEWFALSE', p(0x88, 0x89, 0x86, '.'), tuple(true, false)],
    ['BININT (signed)', p('J', le32(-5 >>> 0), '.'), -5],
    ['BININT1', p('K', 200, '.'), 200],
    ['BININT2', p('M', 0x34, 0x12, '.'), 0x1234],
    ['INT text and its booleans', p('I42\nI01\nI00\n', 0x87, '.'), tuple(42, true, false)],
    ['LONG text', p('L12345678901234567890L\n.'), 12345678901234567890n],
    ['LONG1 two’s complement', p(0x8a, 1, 0xff, '.'), -1],
    ['LONG4', p(0x8b, le32(2), 0x00, 0x01, '.'), 256],
    ['BINFLOAT is big-endian', p('G', [0x3f, 0xf0, 0, 0, 0, 0, 0, 0], '.'), 1],
    ['FLOAT text', p('F0.5\n.'), 0.5],
    ['BINUNICODE', p('X', le32(3), 'abc', '.'), 'abc'],
    ['SHORT_BINUNICODE', p(str('hi'), '.'), 'hi'],
    ['BINUNICODE8', p(0x8d, le64(2), 'ok', '.'), 'ok'],
    ['UNICODE raw-unicode-escape', p('V\\u00e9t\\u00e9\n.'), 'été'],
    ['STRING quoted', p("S'abc'\n."), 'abc'],
    ['BINSTRING', p('T', le32(2), 'xy', '.'), 'xy'],
    ['SHORT_BINSTRING', p('U', 2, 'zz', '.'), 'zz'],
    ['BINBYTES keeps only the length', p('B', le32(3), 'abc', '.'), { kind: 'bytes', length: 3 }],
    ['SHORT_BINBYTES', p('C', 1, 'a', '.'), { kind: 'bytes', length: 1 }],
    ['BINBYTES8', p(0x8e, le64(1), 'a', '.'), { kind: 'bytes', length: 1 }],
    ['BYTEARRAY8', p(0x96, le64(1), 'a', '.'), { kind: 'bytes', length: 1 }],
    ['NEXT_BUFFER + READONLY_BUFFER', p(0x80, 5, 0x97, 0x98, '.'), { kind: 'opaque', label: 'out-of-band buffer' }],
    ['EMPTY_TUPLE', p(').'), tuple()],
    ['TUPLE from MARK', p('(K\x01K\x02t.'), tuple(1, 2)],
    ['TUPLE1', p('K', 1, 0x85, '.'), tuple(1)],
    ['TUPLE3', p('K', 1, 'K', 2, 'K', 3, 0x87, '.'), tuple(1, 2, 3)],
    ['EMPTY_LIST + APPEND', p(']K', 7, 'a.'), list(7)],
    ['LIST + APPENDS', p('(K', 1, 'l(K', 2, 'K', 3, 'e.'), list(1, 2, 3)],
    ['EMPTY_DICT + SETITEM', p('}', str('a'), 'K', 1, 's.'), { kind: 'dict', entries: [['a', 1]] }],
    [
      'DICT + SETITEMS',
      p('(', str('a'), 'K', 1, 'd(', str('b'), 'K', 2, 'u.'),
      {
        kind: 'dict',
        entries: [
          ['a', 1],
          ['b', 2],
        ],
      },
    ],
    ['EMPTY_SET + ADDITEMS', p(0x8f, '(K', 1, 0x90, '.'), { kind: 'set', items: [1] }],
    ['FROZENSET', p('(K', 1, 0x91, '.'), { kind: 'set', items: [1] }],
    ['POP', p('K', 1, 'K', 2, '0.'), 1],
    ['POP with nothing above the mark pops the mark', p('K', 1, '(0.'), 1],
    ['POP_MARK', p('K', 1, '(K', 2, 'K', 3, '1.'), 1],
    ['DUP', p('K', 1, '2', 0x86, '.'), tuple(1, 1)],
    ['PUT / GET', p('K', 9, 'p0\n0g0\n.'), 9],
    ['BINPUT / BINGET', p('K', 9, 'q', 3, '0h', 3, '.'), 9],
    ['LONG_BINPUT / LONG_BINGET', p('K', 9, 'r', le32(70000), '0j', le32(70000), '.'), 9],
    ['MEMOIZE numbers entries in order', p(0x80, 4, 'K', 5, 0x94, '0h', 0, '.'), 5],
    ['GLOBAL', p('cos\nsystem\n.'), { kind: 'global', module: 'os', name: 'system' }],
    ['STACK_GLOBAL', p(0x80, 4, str('os'), str('system'), 0x93, '.'), { kind: 'global', module: 'os', name: 'system' }],
    [
      'REDUCE is data',
      p('cos\nsystem\n', str('id'), 0x85, 'R.'),
      { kind: 'call', callee: { kind: 'global', module: 'os', name: 'system' }, args: ['id'], via: 'reduce' },
    ],
    [
      'NEWOBJ + BUILD',
      p('cargparse\nNamespace\n)', 0x81, '}', str('lr'), 'K', 1, 'sb.'),
      {
        kind: 'call',
        callee: { kind: 'global', module: 'argparse', name: 'Namespace' },
        args: [],
        via: 'newobj',
        state: { kind: 'dict', entries: [['lr', 1]] },
      },
    ],
    [
      'NEWOBJ_EX',
      p(0x80, 4, 'cm\nC\n)}', 0x92, '.'),
      {
        kind: 'call',
        callee: { kind: 'global', module: 'm', name: 'C' },
        args: [{ kind: 'dict', entries: [] }],
        via: 'newobj',
      },
    ],
    [
      'INST',
      p('(K', 1, 'im\nC\n.'),
      { kind: 'call', callee: { kind: 'global', module: 'm', name: 'C' }, args: [1], via: 'inst' },
    ],
    [
      'OBJ',
      p('(cm\nC\nK', 1, 'o.'),
      { kind: 'call', callee: { kind: 'global', module: 'm', name: 'C' }, args: [1], via: 'obj' },
    ],
    ['PERSID', p('Pkey\n.'), { kind: 'persid', id: 'key' }],
    ['BINPERSID', p(str('k'), 'Q.'), { kind: 'persid', id: 'k' }],
    [
      'OrderedDict() becomes a dict that SETITEMS fills',
      p('ccollections\nOrderedDict\n)R', str('w'), 'K', 1, 's.'),
      { kind: 'dict', entries: [['w', 1]], cls: { kind: 'global', module: 'collections', name: 'OrderedDict' } },
    ],
  ];
  for (const [name, bytes, expected] of cases) {
    it(name, () => {
      expect(root(bytes)).toEqual(expected);
    });
  }

  it('EXT1/EXT2/EXT4 name a global by number: a structural hazard', () => {
    for (const bytes of [p(0x82, 1, '.'), p(0x83, 1, 0, '.'), p(0x84, le32(1), '.')]) {
      const run = runPickle(bytes);
      expect(run.hazards[0]?.reason).toMatch(/EXT opcode/);
    }
  });

  it('STACK_GLOBAL with a non-string operand is a hazard with an unknown name', () => {
    const run = runPickle(p(0x80, 4, 'K', 1, str('system'), 0x93, '.'));
    expect(run.hazards[0]?.reason).toMatch(/not a literal string/);
    expect([...run.globals.values()][0]).toMatchObject({ module: '?', name: '?' });
  });

  it('BUILD on a module is a hazard (module mutation)', () => {
    const run = runPickle(p(0x80, 4, str('torch'), str('_utils'), 0x93, '}b.'));
    expect(run.hazards[0]?.reason).toMatch(/BUILD on torch\._utils/);
  });

  it('normalises Python 2 module names and counts every use with its first offset', () => {
    const run = runPickle(p(0x80, 2, 'c__builtin__\neval\n0c__builtin__\neval\n.'));
    expect([...run.globals.values()]).toEqual([{ module: 'builtins', name: 'eval', count: 2, offset: 2 }]);
  });

  it('counts opcodes by name', () => {
    const run = runPickle(p(0x80, 2, ']K', 1, 'aK', 2, 'a.'));
    expect(Object.fromEntries(run.opcodeCounts)).toEqual({ PROTO: 1, EMPTY_LIST: 1, BININT1: 2, APPEND: 2, STOP: 1 });
    expect(Object.keys(OPCODE_NAMES)).toHaveLength(68);
  });

  it('stops with a reason on bad input, never a throw', () => {
    expect(runPickle(p('K')).error).toMatchObject({ needMoreBytes: true });
    expect(runPickle(p(0xff)).error?.reason).toMatch(/unknown opcode 0xff/);
    expect(runPickle(p('.')).error?.reason).toMatch(/underflow/);
    expect(runPickle(p('h', 9, '.')).error?.reason).toMatch(/memo key 9/);
    expect(runPickle(p('t.')).error?.reason).toMatch(/MARK/);
    expect(runPickle(p('K', 1, 'K', 2, 'a.')).error?.reason).toMatch(/APPEND/);
    expect(runPickle(p(0x80, 9)).error?.reason).toMatch(/protocol 9/);
  });

  it('keeps long strings truncated and long integers opaque', () => {
    const long = 'x'.repeat(70_000);
    expect((root(p('X', le32(long.length), long, '.')) as string).length).toBe(64 * 1024 + 1);
    expect(root(p(0x8b, le32(100), new Array<number>(100).fill(1), '.'))).toEqual({
      kind: 'opaque',
      label: 'a 100-byte integer',
    });
  });
});

describe('torch rebuilds', () => {
  it('recognises _rebuild_tensor_v2 with a storage persistent id', () => {
    const bytes = p(
      'ctorch._utils\n_rebuild_tensor_v2\n(',
      '(',
      str('storage'),
      'ctorch\nHalfStorage\n',
      str('7'),
      str('cpu'),
      'K',
      12,
      'tQ',
      'K',
      2,
      'K',
      3,
      'K',
      4,
      0x86,
      'K',
      1,
      'K',
      3,
      0x86,
      0x89,
      'N',
      'tR.',
    );
    expect(runPickle(bytes, 0, rebuildTensors).root).toMatchObject({
      kind: 'tensor',
      dtype: 'F16',
      shape: [3, 4],
      stride: [1, 3],
      offset: 2,
      storageKey: '7',
      storageBytes: 24,
    });
  });
});

describe('property: any bytes end in a result, never a throw or a hang', () => {
  it('random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        const run = runPickle(bytes, 0, rebuildTensors);
        expect(run.complete || run.error !== undefined).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('every prefix of real pickles, through the whole checkpoint reader', async () => {
    const files = ['training_meta.pkl', 'hostile-nested-import.pkl', 'legacy.pt'].map((name) => torchFixture(name));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: files.length - 1 }), fc.nat(), async (index, cut) => {
        const bytes = files[index].subarray(0, cut % (files[index].length + 1));
        const reader = memoryReader(bytes, 'local');
        const first = await reader.read(0, 512);
        const kind = sniffCheckpoint(first) ?? 'pickle';
        const loaded = await readCheckpoint(reader, first, kind);
        const findings =
          loaded.outcome.kind === 'parsed' ? loaded.outcome.header.findings : loaded.outcome.file.findings;
        if (cut % (files[index].length + 1) < files[index].length) {
          // A cut pickle always says so (legacy files may still finish their pickles before the storages).
          expect(findings.length > 0 || index === 2).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
