/**
 * A layers × experts map (core/values/expert-grid.ts), for "Compare values"' changes and "Scan all values"' scales:
 * its summary, one cell per expert of each layer on a canvas, painted by the caller, layer numbers down the left and
 * expert numbers along the top, a legend whose swatches are the colours drawn, the cell under the pointer in words,
 * and what the caller lists below. A canvas because a 61-layer model of 256 experts is 15,616 cells, too many
 * elements for the page. The map takes the keyboard focus: the arrow keys move a ring from cell to cell
 * (grid-keys.ts), the readout says the cell, and Enter or Space does what a click does.
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import type { StackLayer } from '../../core/values/layer-names';
import { movedCell, type GridCell } from './grid-keys';

/** The map's width for cells at most, in CSS px; each cell gets an equal share, within the bounds below. */
const MAP_WIDTH_PX = 640;
const CELL_MIN_PX = 2;
const CELL_MAX_PX = 14;
const ROW_MIN_PX = 4;
const ROW_MAX_PX = 12;
/** Room for the layer numbers left of the rows and the expert numbers above the columns. */
const LEFT_PX = 40;
const TOP_PX = 14;
/** Layer labels are drawn no closer than this, in px (their 10 px text), expert labels no closer than twice it. */
const LABEL_GAP_PX = 11;

/** How to paint one cell: a colour of the grid's `colours`, and its opacity. */
export interface CellPaint {
  colour: number;
  alpha: number;
}

export interface GridShape {
  layers: readonly StackLayer[];
  experts: number;
}

interface Layout {
  cell: number;
  row: number;
  width: number;
  height: number;
}

function layoutOf({ layers, experts }: GridShape): Layout {
  const cell = Math.max(CELL_MIN_PX, Math.min(CELL_MAX_PX, Math.floor(MAP_WIDTH_PX / experts)));
  const row = Math.max(ROW_MIN_PX, Math.min(ROW_MAX_PX, cell));
  return { cell, row, width: LEFT_PX + cell * experts, height: TOP_PX + row * layers.length };
}

function draw(
  canvas: HTMLCanvasElement,
  grid: GridShape,
  layout: Layout,
  colours: readonly string[],
  paint: (at: number) => CellPaint | null,
): void {
  const context = canvas.getContext('2d');
  if (!context) {
    return;
  }
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(layout.width * ratio);
  canvas.height = Math.round(layout.height * ratio);
  context.scale(ratio, ratio);
  const { cell, row } = layout;
  const gap = cell > 3 ? 1 : 0;
  for (let r = 0; r < grid.layers.length; r++) {
    for (let expert = 0; expert < grid.experts; expert++) {
      const painted = paint(r * grid.experts + expert);
      if (painted === null) {
        continue;
      }
      context.globalAlpha = painted.alpha;
      context.fillStyle = colours[painted.colour];
      context.fillRect(LEFT_PX + expert * cell, TOP_PX + r * row, cell - gap, row - gap);
    }
  }
  context.globalAlpha = 1;
  context.fillStyle = getComputedStyle(canvas).color;
  context.font = '10px system-ui, sans-serif';
  context.textBaseline = 'middle';
  const rowStep = Math.ceil(LABEL_GAP_PX / row);
  grid.layers.forEach(({ layer }, r) => {
    if (r % rowStep === 0) {
      context.fillText(String(layer), 0, TOP_PX + r * row + row / 2);
    }
  });
  const columnStep = [1, 2, 4, 8, 16, 32, 64, 128].find((step) => step * cell >= LABEL_GAP_PX * 2) ?? 256;
  for (let expert = 0; expert < grid.experts; expert += columnStep) {
    context.fillText(String(expert), LEFT_PX + expert * cell, TOP_PX / 2);
  }
}

/** A number that changes when the page's colour theme does (the `data-theme` attribute, or the system's scheme). */
function useThemeVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    const observer = new MutationObserver(bump);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', bump);
    return () => {
      observer.disconnect();
      scheme.removeEventListener('change', bump);
    };
  }, []);
  return version;
}

export function ExpertGridView({
  grid,
  summary,
  colours,
  legend,
  paint,
  cellText,
  idleText,
  label,
  testId,
  onCellClick,
  children,
}: {
  grid: GridShape;
  /** The map in words, above it and as the canvas's accessible name. */
  summary: string;
  /** CSS colours (`var(--accent)`), resolved by the browser: the theme's are light-dark() pairs a canvas cannot read. */
  colours: readonly string[];
  legend: ReadonlyArray<{ colour: number; label: string }>;
  paint: (at: number) => CellPaint | null;
  cellText: (row: number, expert: number) => string;
  idleText: string;
  /** The section's accessible name. */
  label: string;
  /** `<testId>-summary`, `<testId>-canvas`, `<testId>-hover`, `<testId>-legend`. */
  testId: string;
  /** A click on a cell; without it the cells are not clickable. */
  onCellClick?: (row: number, expert: number) => void;
  /** What follows the map: the layers in words. */
  children?: ReactNode;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const probes = useRef<Array<HTMLSpanElement | null>>([]);
  const readoutId = useId();
  const [hover, setHover] = useState<string | null>(null);
  /** The cell the keyboard is on; shown (ring and readout) while the map has the focus from the keyboard. */
  const [keyCell, setKeyCell] = useState<GridCell>({ row: 0, expert: 0 });
  const [keyboard, setKeyboard] = useState(false);
  const theme = useThemeVersion();
  const layout = layoutOf(grid);
  useEffect(() => {
    if (canvas.current) {
      const resolved = colours.map((colour, at) => {
        const probe = probes.current[at];
        return probe ? getComputedStyle(probe).color : colour;
      });
      draw(canvas.current, grid, layoutOf(grid), resolved, paint);
    }
  }, [grid, colours, paint, theme]);
  /** The cell under the pointer, or null. */
  const cellAt = (event: MouseEvent<HTMLCanvasElement>): GridCell | null => {
    // The canvas shrinks with a narrow page (max-width: 100%), so the pointer is scaled back to the drawn layout.
    const box = event.currentTarget.getBoundingClientRect();
    const scale = box.width > 0 ? layout.width / box.width : 1;
    const expert = Math.floor(((event.clientX - box.left) * scale - LEFT_PX) / layout.cell);
    const row = Math.floor(((event.clientY - box.top) * scale - TOP_PX) / layout.row);
    return expert >= 0 && expert < grid.experts && row >= 0 && row < grid.layers.length ? { row, expert } : null;
  };
  const onMove = (event: MouseEvent<HTMLCanvasElement>) => {
    const cell = cellAt(event);
    setKeyboard(false);
    setHover(cell ? cellText(cell.row, cell.expert) : null);
  };
  const onClick = (event: MouseEvent<HTMLCanvasElement>) => {
    const cell = cellAt(event);
    if (cell) {
      setKeyCell(cell);
      onCellClick?.(cell.row, cell.expert);
    }
  };
  // A map redrawn smaller (another comparison) must not leave the ring outside it.
  const shown: GridCell = {
    row: Math.min(keyCell.row, grid.layers.length - 1),
    expert: Math.min(keyCell.expert, grid.experts - 1),
  };
  const onKeyDown = (event: KeyboardEvent<HTMLCanvasElement>) => {
    if ((event.key === 'Enter' || event.key === ' ') && onCellClick) {
      event.preventDefault();
      setKeyboard(true);
      onCellClick(shown.row, shown.expert);
      return;
    }
    const next = movedCell(event.key, event.ctrlKey || event.metaKey, shown, grid.layers.length, grid.experts);
    if (next) {
      event.preventDefault();
      setKeyboard(true);
      setKeyCell(next);
    }
  };
  const readout = keyboard ? cellText(shown.row, shown.expert) : (hover ?? idleText);
  const keysHelp = onCellClick
    ? 'Arrow keys move from cell to cell; Enter shows the cell in the table.'
    : 'Arrow keys move from cell to cell.';
  return (
    <section className="expert-map" aria-label={label} data-testid={testId}>
      <h4>Experts by layer</h4>
      <p data-testid={`${testId}-summary`}>{summary}</p>
      {colours.map((colour, at) => (
        <span
          key={colour}
          hidden
          ref={(element) => {
            probes.current[at] = element;
          }}
          style={{ color: colour }}
        />
      ))}
      <div className="expert-map-frame" style={{ width: layout.width }}>
        <canvas
          ref={canvas}
          className="expert-map-canvas"
          style={{ width: layout.width, cursor: onCellClick ? 'pointer' : undefined }}
          tabIndex={0}
          role="application"
          aria-roledescription="map of experts"
          aria-label={`${summary} Each cell is one expert of one layer. ${keysHelp}`}
          aria-describedby={readoutId}
          data-testid={`${testId}-canvas`}
          data-left={LEFT_PX}
          data-top={TOP_PX}
          data-cell={layout.cell}
          data-row={layout.row}
          onMouseMove={onMove}
          onClick={onClick}
          onMouseLeave={() => setHover(null)}
          onKeyDown={onKeyDown}
          onFocus={(event) => setKeyboard(event.currentTarget.matches(':focus-visible'))}
          onBlur={() => setKeyboard(false)}
        />
        {keyboard && (
          <span
            className="expert-map-ring"
            aria-hidden="true"
            data-testid={`${testId}-ring`}
            style={{
              left: `${((LEFT_PX + shown.expert * layout.cell) / layout.width) * 100}%`,
              top: `${((TOP_PX + shown.row * layout.row) / layout.height) * 100}%`,
              width: `${(layout.cell / layout.width) * 100}%`,
              height: `${(layout.row / layout.height) * 100}%`,
            }}
          />
        )}
      </div>
      <ul className="expert-map-legend" data-testid={`${testId}-legend`}>
        {legend.map((item) => (
          <li key={item.label}>
            <span className="expert-map-swatch" style={{ background: colours[item.colour] }} aria-hidden="true" />
            {item.label}
          </li>
        ))}
      </ul>
      <p id={readoutId} className="values-note expert-map-readout" aria-live="polite" data-testid={`${testId}-hover`}>
        {readout}
      </p>
      {children}
    </section>
  );
}
