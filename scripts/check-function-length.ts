/**
 * Lists every function over MAX_FUNCTION_LINES lines and every file over MAX_FILE_LINES lines in src/, and exits
 * non-zero when there is one (part of `npm run lint`). A function's length is counted as prettier lays it out: from
 * the line it starts on to the line of its closing brace, which prettier puts on the function's own indentation.
 * Usage: npx tsx scripts/check-function-length.ts [root]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Past this a reader cannot hold a function in mind; split it along its steps. */
export const MAX_FUNCTION_LINES = 200;
/** Past this a file holds more than one thing; split it by what its parts own. */
export const MAX_FILE_LINES = 800;

/**
 * Parser hot loops allowed to stay long, as `file#function`, with the reason. Each is one state machine over bytes
 * whose states share locals the engine keeps in registers; a call per token slows the parse (`npm run bench`).
 * The header scanner (src/core/parse/header-scanner.ts) and the JSON cursor (src/core/parse/json-cursor.ts) are hot
 * loops too but fit the limit as they are, so they need no exception.
 */
export const LONG_FUNCTION_EXCEPTIONS: ReadonlyMap<string, string> = new Map([
  [
    'src/core/formats/pytorch/pickle-machine.ts#loop',
    'the pickle interpreter: one switch over ~70 opcodes run once per opcode of a checkpoint of up to 2 GB',
  ],
]);

export interface LengthViolation {
  file: string;
  /** Null for a file over MAX_FILE_LINES. */
  name: string | null;
  line: number;
  lines: number;
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
    return node.name.text;
  }
  // An anonymous function takes the name of what it is assigned to (`const x = () => …`, `{ key: () => … }`).
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && ts.isIdentifier(parent.name)) {
    return parent.name.text;
  }
  return '(anonymous)';
}

/** The functions over the limit and whether the file itself is over its limit, for one source text. */
export function lengthViolations(file: string, text: string): LengthViolation[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line + 1;
  const found: LengthViolation[] = [];
  const fileLines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  if (fileLines > MAX_FILE_LINES) {
    found.push({ file, name: null, line: 1, lines: fileLines });
  }
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const declaration = node as ts.FunctionLikeDeclaration;
      const start = lineOf(declaration.getStart(source));
      const lines = lineOf(declaration.getEnd()) - start + 1;
      if (lines > MAX_FUNCTION_LINES) {
        found.push({ file, name: functionName(declaration), line: start, lines });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      return sourceFiles(path);
    }
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every violation under `root`/src, hot loops excepted. */
export function checkTree(root: string): LengthViolation[] {
  return sourceFiles(join(root, 'src')).flatMap((path) => {
    const file = relative(root, path).split('\\').join('/');
    return lengthViolations(file, readFileSync(path, 'utf8')).filter(
      (violation) => violation.name === null || !LONG_FUNCTION_EXCEPTIONS.has(`${file}#${violation.name}`),
    );
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? join(fileURLToPath(import.meta.url), '..', '..'));
  const violations = checkTree(root);
  for (const { file, name, line, lines } of violations) {
    console.error(
      name === null
        ? `${file}: ${lines} lines (a file may have ${MAX_FILE_LINES})`
        : `${file}:${line}: ${name} is ${lines} lines (a function may have ${MAX_FUNCTION_LINES})`,
    );
  }
  process.exit(violations.length > 0 ? 1 : 0);
}
