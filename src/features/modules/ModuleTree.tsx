/**
 * The module hierarchy by dotted name, with repeated blocks folded (`layers.0–60`), elements and bytes per subtree,
 * and charts of bytes by top-level module and by layer. Selecting a node filters the tensor table.
 */
import { useState } from 'react';
import { Bar, BarChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { ModuleNode, ModuleTreeSection } from '../../core/analysis/report-sections';
import { MAX_NAME_DISPLAY_CHARS } from '../../core/limits';
import { shortenForDisplay } from '../../lib/display-text';
import { formatBytes, formatCount, formatShape, groupDigits } from '../../lib/format';
import { useAppStore } from '../../state/store';

/** Levels open on first render: the top of the tree plus one, so repeated blocks are visible at a glance. */
const INITIALLY_OPEN_DEPTH = 2;

function TreeNode({ node, depth }: { node: ModuleNode; depth: number }) {
  const [open, setOpen] = useState(depth < INITIALLY_OPEN_DEPTH);
  const showModule = useAppStore((state) => state.showModule);
  const hasChildren = (node.children?.length ?? 0) > 0;
  return (
    <li role="treeitem" aria-expanded={hasChildren ? open : undefined} aria-selected={false}>
      <div className="tree-row">
        {hasChildren ? (
          <button
            type="button"
            className="tree-toggle"
            aria-label={open ? 'Collapse' : 'Expand'}
            onClick={() => setOpen(!open)}
          >
            {open ? '▾' : '▸'}
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
          {groupDigits(node.tensors)} tensors · {formatCount(node.elements)} · {formatBytes(node.bytes)}
        </span>
      </div>
      {hasChildren && open && (
        <ul role="group">
          {node.children?.map((child) => (
            <TreeNode key={child.pattern} node={child} depth={depth + 1} />
          ))}
          {node.more && (
            <li className="muted">
              … {groupDigits(node.more.nodes)} more nodes ({groupDigits(node.more.tensors)} tensors,{' '}
              {formatBytes(node.more.bytes)})
            </li>
          )}
        </ul>
      )}
    </li>
  );
}

export function ModuleTree({ section }: { section: ModuleTreeSection }) {
  const showModule = useAppStore((state) => state.showModule);
  const layerSeries = section.bytesByLayer[0];
  return (
    <section className="module-tree" aria-label="Modules">
      <ul role="tree" aria-label="Module tree" className="tree">
        {(section.root.children ?? [section.root]).map((child) => (
          <TreeNode key={child.pattern} node={child} depth={0} />
        ))}
      </ul>
      {section.bytesByTopLevel.length > 1 && (
        <>
          <h4>Bytes by top-level module</h4>
          <div className="chart-box">
            <ResponsiveContainer width="100%" height={Math.max(140, section.bytesByTopLevel.length * 26 + 30)}>
              <BarChart data={section.bytesByTopLevel} layout="vertical" margin={{ left: 24, right: 24 }}>
                <XAxis type="number" tickFormatter={formatBytes} />
                <YAxis type="category" dataKey="label" width={180} />
                <Tooltip formatter={(value) => formatBytes(Number(value))} />
                <Bar
                  dataKey="bytes"
                  fill="var(--accent)"
                  isAnimationActive={false}
                  onClick={(data) => {
                    const prefix = (data as unknown as { prefix?: string }).prefix;
                    if (prefix) {
                      showModule(prefix);
                    }
                  }}
                />
              </BarChart>
            </ResponsiveContainer>
          </div>
        </>
      )}
      {layerSeries && layerSeries.points.length > 1 && (
        <>
          <h4>
            Bytes by layer (<code>{layerSeries.prefix}N</code>)
          </h4>
          <div className="chart-box">
            <ResponsiveContainer width="100%" height={220}>
              <BarChart data={layerSeries.points} margin={{ left: 24, right: 24 }}>
                <XAxis dataKey="index" />
                <YAxis tickFormatter={formatBytes} width={80} />
                <Tooltip
                  formatter={(value) => formatBytes(Number(value))}
                  labelFormatter={(label) => `${layerSeries.prefix}${label}`}
                />
                <Bar dataKey="bytes" fill="var(--accent)" isAnimationActive={false} />
              </BarChart>
            </ResponsiveContainer>
          </div>
        </>
      )}
    </section>
  );
}
