/** Deeply nested JSON for the depth tests and the fuzz generators (no test runner imports: `npm run fuzz` uses it). */
/**
 * `levels` containers opened by cycling through `kinds` (each an opening such as `[`, `{"k":` or `[1,`), and the
 * closers that end them in reverse order: wrap a value as `${open}value${close}` to nest it that deep.
 */
export function nestedJson(levels: number, kinds: readonly string[]): { open: string; close: string } {
  let open = '';
  let close = '';
  for (let i = 0; i < levels; i++) {
    const kind = kinds[i % kinds.length];
    open += kind;
    close = (kind.startsWith('[') ? ']' : '}') + close;
  }
  return { open, close };
}
