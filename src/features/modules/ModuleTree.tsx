/**
 * The module hierarchy by dotted name, with repeated blocks folded (`layers.0–60`), elements and bytes per subtree,
 * and charts of bytes by top-level module and by layer. Selecting a node filters the tensor table.
 * The tree is drawn as a flat, virtualized list of its open rows (ARIA treeitems with levels), so a tree of
 * thousands of nodes mounts only the rows in view.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import type { ModuleNode, ModuleTreeSection } from '../../core/analysis/report-sections';
import { MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import { shortenForDisplay } from '../../lib/display-text';
import { formatBytes, formatCount, formatShape, groupDigits, plural } from '../../core/number-format';
import { useAppStore } from '../../state/store';
import { BarsChart } from '../../lib/bars/LazyBars';
import './module-tree.css';

/** Levels open on first render: the top of the tree plus one, so repeated blocks are visible at a glance. */
const INITIALLY_OPEN_DEPTH = 2;
const ROW_HEIGHT_PX = 26;
const MAX_TREE_HEIGHT_PX = 560;

type TreeRow =
  | { kind: 'node'; node: ModuleNode; level: number; open: boolean; position: number; siblings: number }
  | { kind: 'more'; parent: ModuleNode; level: number };

/** The visible rows, depth first; `toggled` holds the patterns whose open state differs from the default. */
function visibleRows(roots: readonly ModuleNode[], toggled: ReadonlySet<string>): TreeRow[] {
  const rows: TreeRow[] = [];
  const stack: Array<{ node: ModuleNode; level: number; position: number; siblings: number } | TreeRow> = [];
  const pushChildren = (children: readonly ModuleNode[], level: number) => {
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ node: children[i], level, position: i + 1, siblings: children.length });
    }
  };
  pushChildren(roots, 1);
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if ('kind' in item) {
      rows.push(item);
      continue;
    }
    const hasChildren = (item.node.children?.length ?? 0) > 0 || item.node.more !== undefined;
    const open = hasChildren && item.level <= INITIALLY_OPEN_DEPTH !== toggled.has(item.node.pattern);
    rows.push({ kind: 'node', ...item, open });
    if (open) {
      if (item.node.more) {
        stack.push({ kind: 'more', parent: item.node, level: item.level + 1 });
      }
      pushChildren(item.node.children ?? [], item.level + 1);
    }
  }
  return rows;
}

function NodeRow({ row, onToggle }: { row: Extract<TreeRow, { kind: 'node' }>; onToggle: (pattern: string) => void }) {
  const showModule = useAppStore((state) => state.showModule);
  const { node } = row;
  const hasChildren = (node.children?.length ?? 0) > 0 || node.more !== undefined;
  return (
    <div className="tree-row" style={{ paddingLeft: (row.level - 1) * 16 }}>
      {hasChildren ? (
        <button
          type="button"
          className="tree-toggle"
          aria-label={row.open ? 'Collapse' : 'Expand'}
          onClick={() => onToggle(node.pattern)}
        >
          {row.open ? '▾' : '▸'}
        </button>
      ) : (
        <span className="tree-toggle" />
      )}
      <button
        type="button"
        className="link-button tree-label"
        title={`Show the tensors under ${shortenForDisplay(node.pattern, MAX_NAME_DISPLAY_CHARS)}`}
        onClick={() => showModule(node.pattern)}
      >
        {shortenForDisplay(node.label, MAX_NAME_DISPLAY_CHARS)}
      </button>
      {node.repeat && <span className="badge">×{groupDigits(node.repeat.count)}</span>}
      {node.dtype && (
        <span className="muted">
          {node.dtype} {node.shape ? formatShape(node.shape) : ''}
        </span>
      )}
      <span className="tree-stats muted">
        {plural(node.tensors, 'tensor')} · {formatCount(node.elements)} stored{' '}
        {node.elements === 1 ? 'element' : 'elements'} · {formatBytes(node.bytes)}
      </span>
    </div>
  );
}

function VirtualTree({ roots }: { roots: readonly ModuleNode[] }) {
  const [toggled, setToggled] = useState<ReadonlySet<string>>(() => new Set());
  const rows = useMemo(() => visibleRows(roots, toggled), [roots, toggled]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT_PX,
    overscan: 10,
  });
  const onToggle = (pattern: string) =>
    setToggled((previous) => {
      const next = new Set(previous);
      if (!next.delete(pattern)) {
        next.add(pattern);
      }
      return next;
    });
  return (
    <div
      ref={scrollRef}
      className="tree-scroll"
      style={{ height: Math.min(rows.length * ROW_HEIGHT_PX, MAX_TREE_HEIGHT_PX) }}
    >
      <div role="tree" aria-label="Module tree" className="tree" style={{ height: virtualizer.getTotalSize() }}>
        {virtualizer.getVirtualItems().map((item) => {
          const row = rows[item.index];
          const style = { height: ROW_HEIGHT_PX, transform: `translateY(${item.start}px)` };
          if (row.kind === 'more') {
            const more = row.parent.more ?? { nodes: 0, tensors: 0, bytes: 0 };
            return (
              <div key={item.key} role="treeitem" aria-level={row.level} className="tree-item muted" style={style}>
                <div className="tree-row" style={{ paddingLeft: (row.level - 1) * 16 + 26 }}>
                  … {groupDigits(more.nodes)} more {more.nodes === 1 ? 'node' : 'nodes'} (
                  {plural(more.tensors, 'tensor')}, {formatBytes(more.bytes)})
                </div>
              </div>
            );
          }
          const hasChildren = (row.node.children?.length ?? 0) > 0 || row.node.more !== undefined;
          return (
            <div
              key={item.key}
              role="treeitem"
              aria-level={row.level}
              aria-posinset={row.position}
              aria-setsize={row.siblings}
              aria-expanded={hasChildren ? row.open : undefined}
              aria-selected={false}
              className="tree-item"
              style={style}
            >
              <NodeRow row={row} onToggle={onToggle} />
            </div>
          );
        })}
      </div>
    </div>
  );
}

export function ModuleTree({ section }: { section: ModuleTreeSection }) {
  const showModule = useAppStore((state) => state.showModule);
  const layerSeries = section.bytesByLayer[0];
  return (
    <section className="module-tree" aria-label="Modules">
      {section.gaveUp ? (
        <p className="notice" data-testid="module-tree-gave-up">
          This header has {groupDigits(section.gaveUp.distinctPaths)} distinct module paths and no repeated structure to
          fold; the module tree stops above {groupDigits(section.gaveUp.limit)}. Together they hold{' '}
          {plural(section.root.tensors, 'tensor')}, {formatCount(section.root.elements)} stored{' '}
          {section.root.elements === 1 ? 'element' : 'elements'} and {formatBytes(section.root.bytes)}. Filter the
          tensor table by name to explore them.
        </p>
      ) : (
        <>
          {section.nodeBudgetReached && (
            <p className="muted" data-testid="module-tree-budget">
              The tree shows its first {groupDigits(section.nodeCount)} nodes; the rest are folded into “… more” entries
              with exact totals.
            </p>
          )}
          <VirtualTree roots={section.root.children ?? [section.root]} />
        </>
      )}
      {section.bytesByTopLevel.length > 1 && (
        <>
          <h4>Bytes by top-level module</h4>
          <BarsChart
            data={section.bytesByTopLevel}
            height={Math.max(140, section.bytesByTopLevel.length * 26 + 30)}
            layout="vertical"
            categoryKey="label"
            valueKey="bytes"
            formatValue={formatBytes}
            labelWidth={180}
            onBarClick={(point) => point.prefix && showModule(point.prefix)}
          />
        </>
      )}
      {layerSeries && layerSeries.points.length > 1 && (
        <>
          <h4>
            Bytes by layer (<code>{layerSeries.prefix}N</code>
            {layerSeries.layersPerPoint && <>, {groupDigits(layerSeries.layersPerPoint)} layers summed per bar</>})
          </h4>
          <BarsChart
            data={layerSeries.points}
            height={220}
            layout="horizontal"
            categoryKey="index"
            valueKey="bytes"
            formatValue={formatBytes}
            tooltipTitle={(point) =>
              `${layerSeries.prefix}${point.index}${point.last === undefined ? '' : `–${point.last}`}`
            }
          />
        </>
      )}
    </section>
  );
}
