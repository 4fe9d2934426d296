import { describe, expect, it } from 'vitest';
import { torchFixtureHeader } from '../../../testing/torch-fixtures';
import { callText, pythonRepr } from './call-text';
import { MAX_CALL_TEXT_CHARS } from './checkpoint-limits';
import type { PyCall, PyList } from './pickle-values';

async function calls(name: string) {
  const { pickle } = await torchFixtureHeader(name);
  if (!pickle) {
    throw new Error(`${name} has no pickle`);
  }
  return pickle;
}

describe('what a hostile pickle would run, as text', () => {
  it.each([
    ['hostile-os-system.pkl', ["posix.system('echo pwned')"]],
    ['hostile-eval.pkl', ['builtins.eval(\'__import__("os").getcwd()\')']],
    ['hostile-subprocess.pkl', ["subprocess.Popen(['id'])"]],
    ['hostile-exec.pkl', ["builtins.exec('print(1)')"]],
    ['hostile-memo-stack-global.pkl', ["posix.system('id')"]],
    // The import and the getattr fold into the one call that uses them.
    ['hostile-nested-import.pkl', ["builtins.getattr(builtins.__import__('os'), 'system')('id')"]],
    ['hostile-checkpoint.bin', ["posix.system('echo pwned')"]],
  ])('%s', async (name, expected) => {
    const pickle = await calls(name);
    expect(pickle.calls.map((call) => call.text)).toEqual(expected);
    expect(pickle.callsTotal).toBe(expected.length);
    expect(pickle.calls[0].offset).toBeGreaterThan(0);
  });

  it('a safe checkpoint records no call', async () => {
    expect((await calls('lightning.ckpt')).calls).toEqual([]);
  });

  it('escapes what could hide or break the text, as Python repr does', () => {
    expect(pythonRepr("it's")).toBe('"it\'s"');
    expect(pythonRepr('a\'b"c\\\n\u0000\u200b<b>')).toBe("'a\\'b\"c\\\\\\n\\x00\\u200b<b>'");
  });

  it('is bounded in length and in depth, even for a list that holds itself', () => {
    const long: PyCall = {
      kind: 'call',
      callee: { kind: 'global', module: 'posix', name: 'system' },
      args: ['x'.repeat(10_000)],
      via: 'reduce',
    };
    const text = callText(long);
    expect(text.length).toBe(MAX_CALL_TEXT_CHARS + 1);
    expect(text.endsWith('…')).toBe(true);
    const loop: PyList = { kind: 'list', items: [] };
    loop.items.push(loop);
    const cyclic: PyCall = { ...long, args: [loop] };
    expect(callText(cyclic)).toBe('posix.system([[[[[[[[…]]]]]]]])');
  });
});
