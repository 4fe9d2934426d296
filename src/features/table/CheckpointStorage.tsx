/** Where a checkpoint tensor lives: its storage, element offset and strides (checkpoints have no flat data region). */
import { groupDigits } from '../../core/number-format';
import { tensorName, type ParsedHeader } from '../../core/model';

export function CheckpointStorage({ header, row }: { header: ParsedHeader; row: number }) {
  const rows = header.checkpoint?.rows;
  const storage = rows?.storage[row];
  const stride = rows?.stride[row] ?? [];
  return (
    <div className="wide" data-testid="tensor-storage">
      <dt>Storage</dt>
      <dd>
        {storage === null || storage === undefined ? 'none (meta tensor)' : `data/${storage}`}, offset{' '}
        {groupDigits(rows?.offset[row] ?? 0)} elements, stride [{stride.join(', ')}]
        {header.checkpoint?.views.includes(tensorName(header.tensors, row)) ? ' (a view: needs .contiguous())' : ''}
      </dd>
    </div>
  );
}
