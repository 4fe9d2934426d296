/** Architecture and quantization clauses of the verdict line, from the analyses when they had something to say. */
import type { LoadResult } from '../../worker/protocol';

export function VerdictClauses({ result }: { result: LoadResult }) {
  void result;
  return null;
}
