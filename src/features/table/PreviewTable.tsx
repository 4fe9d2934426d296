/**
 * The first rows of a big header, painted while the rest is still arriving or being parsed; for a sharded model, the
 * first rows of the first shard header to arrive, while the other shards load.
 */
import { dtypeName } from '../../core/dtypes';
import { tensorName, type TensorColumns } from '../../core/model';
import { memo, useEffect } from 'react';
import { formatTensorShape, plural } from '../../core/number-format';
import { markFirstRowsPainted } from '../../lib/perf-marks';
import { ElidedName } from './ElidedName';

/** Memoized: the load's progress re-renders the page many times a second, and these rows never change meanwhile. */
export const PreviewTable = memo(function PreviewTable({
  rows,
  shard = null,
  loadId,
}: {
  rows: TensorColumns;
  shard?: string | null;
  loadId: number;
}) {
  useEffect(() => {
    if (rows.count > 0) {
      markFirstRowsPainted(loadId);
    }
  }, [rows, loadId]);
  return (
    <section className="preview" aria-label="First tensors (still loading)">
      <p className="muted">
        {shard === null ? (
          <>First {plural(rows.count, 'tensor')}, while the rest of the header loads:</>
        ) : (
          <>
            First {plural(rows.count, 'tensor')} of <span className="preview-shard">{shard}</span>, while the other
            shards load:
          </>
        )}
      </p>
      <div className="tensor-table" role="table" aria-label="Tensor preview">
        {Array.from({ length: rows.count }, (_, row) => (
          <div className="tt-row" role="row" key={row}>
            <div role="cell" className="tt-cell tt-name">
              <ElidedName name={tensorName(rows, row)} />
            </div>
            <div role="cell" className="tt-cell tt-dtype">
              {dtypeName(rows.dtype[row]) ?? '?'}
            </div>
            <div role="cell" className="tt-cell tt-shape">
              {formatTensorShape(rows, row)}
            </div>
          </div>
        ))}
      </div>
    </section>
  );
});
