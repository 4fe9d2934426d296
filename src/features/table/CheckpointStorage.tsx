/**
 * Where a checkpoint tensor lives (checkpoints have no flat data region): its storage, element offset and strides; a
 * Distributed Checkpoint's tensor, its chunks (where in the tensor, which file and byte range).
 */
import { formatBytes, groupDigits } from '../../core/number-format';
import { tensorName, type ParsedHeader } from '../../core/model';
import { PICKLED_ARRAY_STORAGE_PREFIX } from '../../core/formats/pytorch/numpy-arrays';

/** Chunks listed in a tensor's details; the rest are counted. */
const LISTED_CHUNKS = 8;

function DcpChunks({ header, row }: { header: ParsedHeader; row: number }) {
  const chunks = header.dcp?.rows[row] ?? [];
  return (
    <div className="wide" data-testid="tensor-storage">
      <dt>Chunks</dt>
      <dd>
        {chunks.length === 0 ? (
          'none listed'
        ) : (
          <ul className="plain-list">
            {chunks.slice(0, LISTED_CHUNKS).map((chunk, index) => (
              <li key={index}>
                at [{chunk.at.join(', ')}], size [{chunk.sizes.join(', ')}]:{' '}
                {chunk.file === null
                  ? 'no file (storage_data lacks it)'
                  : `${chunk.file}, bytes ${groupDigits(chunk.offset)}–${groupDigits(chunk.offset + chunk.length)} (${formatBytes(chunk.length)}, one torch.save archive)`}
              </li>
            ))}
            {chunks.length > LISTED_CHUNKS && <li>and {groupDigits(chunks.length - LISTED_CHUNKS)} more</li>}
          </ul>
        )}
      </dd>
    </div>
  );
}

export function CheckpointStorage({ header, row }: { header: ParsedHeader; row: number }) {
  if (header.dcp) {
    return <DcpChunks header={header} row={row} />;
  }
  const rows = header.checkpoint?.rows;
  const storage = rows?.storage[row];
  const stride = rows?.stride[row] ?? [];
  return (
    <div className="wide" data-testid="tensor-storage">
      <dt>Storage</dt>
      <dd>
        {storage === null || storage === undefined
          ? 'none (meta tensor)'
          : storage.startsWith(PICKLED_ARRAY_STORAGE_PREFIX)
            ? 'inline in the pickle (a NumPy array)'
            : `data/${storage}`}
        , offset {groupDigits(rows?.offset[row] ?? 0)} elements, stride [{stride.join(', ')}]
        {header.checkpoint?.views.includes(tensorName(header.tensors, row)) ? ' (a view: needs .contiguous())' : ''}
      </dd>
    </div>
  );
}
