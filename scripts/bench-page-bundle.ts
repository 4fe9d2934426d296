/**
 * A peer library bundled into one script for a benchmark page. The peers' Node built-ins (their local-file paths,
 * unused in a page) become empty modules, so the page runs the same parser a browser user of the library gets.
 */
import { builtinModules } from 'node:module';

export async function bundleForPage(entrySource: string): Promise<string> {
  const { build } = await import('esbuild');
  const builtins = new Set(builtinModules);
  const result = await build({
    stdin: { contents: entrySource, resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'error',
    plugins: [
      {
        name: 'node-builtins-empty',
        setup(context) {
          context.onResolve({ filter: /.*/ }, (args) =>
            builtins.has(args.path.replace(/^node:/, '')) ? { path: args.path, namespace: 'empty' } : undefined,
          );
          context.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'module.exports = {};' }));
        },
      },
    ],
  });
  return result.outputFiles[0].text;
}
