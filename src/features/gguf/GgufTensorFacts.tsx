/** A GGUF tensor's own facts in the details: its dimensions in GGUF order (ne) and its blocks. */
import { DTYPE_BLOCK_ELEMENTS, isBlockDtype } from '../../core/dtypes';
import { tensorShape, type ParsedHeader } from '../../core/model';
import { formatDim, groupDigits } from '../../core/number-format';

export function GgufTensorFacts({ header, row }: { header: ParsedHeader; row: number }) {
  const shape = tensorShape(header.tensors, row);
  const code = header.tensors.dtype[row];
  const block = DTYPE_BLOCK_ELEMENTS[code];
  return (
    <>
      <div className="wide" data-testid="gguf-ne">
        <dt>GGUF order (ne)</dt>
        <dd>
          [{[...shape].reverse().map(formatDim).join(', ')}] — fastest-varying first; the shape above is in PyTorch
          order
        </dd>
      </div>
      {isBlockDtype(code) && Number.isFinite(header.tensors.elements[row]) && (
        <div className="wide">
          <dt>Blocks</dt>
          <dd>
            {groupDigits(header.tensors.elements[row] / block)} blocks of {block} weights
          </dd>
        </div>
      )}
    </>
  );
}
