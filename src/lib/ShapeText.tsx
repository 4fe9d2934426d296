/** A tensor's shape, bounded (see shape-text.ts), with a "Show all" viewer that stays responsive for any rank. */
import { useState } from 'react';
import type { TensorColumns } from '../core/model';
import { ChunkedText } from './ChunkedText';
import { formatTensorShape, groupDigits, MAX_SHAPE_DIMS_SHOWN, shapeRank } from '../core/number-format';
import { shapeRows } from './shape-text';

export function ShapeText({ columns, row }: { columns: TensorColumns; row: number }) {
  const [expanded, setExpanded] = useState(false);
  const rank = shapeRank(columns, row);
  if (rank <= MAX_SHAPE_DIMS_SHOWN) {
    return <>{formatTensorShape(columns, row)}</>;
  }
  const rows = shapeRows(columns, row);
  return (
    <>
      {expanded ? (
        <ChunkedText
          rowCount={rows.rowCount}
          rowText={rows.rowText}
          label="Every dim of the shape"
          testId="shape-all"
        />
      ) : (
        <span data-testid="shape-short">{formatTensorShape(columns, row)}</span>
      )}{' '}
      <button type="button" className="link-button" onClick={() => setExpanded(!expanded)}>
        {expanded ? 'Show less' : `Show all ${groupDigits(rank)} dims`}
      </button>
    </>
  );
}
