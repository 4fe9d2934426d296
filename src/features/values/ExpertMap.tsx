/**
 * The expert map of "Compare values" (core/values/expert-map.ts): one cell per expert of each layer, coloured by
 * its relative change, grey where every value is the same, blank where nothing was compared; the cell under the
 * pointer in words, and the changed experts of each layer as text to copy. Drawn on a canvas: a 61-layer model of
 * 256 experts is 15,616 cells, too many elements for the page.
 */
import { useEffect, useRef, useState, type MouseEvent } from 'react';
import type { ExpertChangeMap } from '../../core/values/expert-map';
import { expertCellText, expertMapSummary, layerExpertsText } from './expert-changes-text';

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
/** Least opacity of a changed cell, so the smallest change still shows against unchanged grey. */
const MIN_ALPHA = 0.45;

interface Layout {
  cell: number;
  row: number;
  width: number;
  height: number;
}

function layoutOf(map: ExpertChangeMap): Layout {
  const cell = Math.max(CELL_MIN_PX, Math.min(CELL_MAX_PX, Math.floor(MAP_WIDTH_PX / map.experts)));
  const row = Math.max(ROW_MIN_PX, Math.min(ROW_MAX_PX, cell));
  return { cell, row, width: LEFT_PX + cell * map.experts, height: TOP_PX + row * map.layers.length };
}

function draw(canvas: HTMLCanvasElement, map: ExpertChangeMap, layout: Layout): void {
  const context = canvas.getContext('2d');
  if (!context) {
    return;
  }
  const ratio = window.devicePixelRatio || 1;
  canvas.width = Math.round(layout.width * ratio);
  canvas.height = Math.round(layout.height * ratio);
  context.scale(ratio, ratio);
  // The theme's colours, resolved by the browser (they are light-dark() pairs a canvas cannot read).
  const style = getComputedStyle(canvas);
  const [changedColour, sameColour, textColour] = [style.color, style.borderTopColor, style.outlineColor];
  const top = Math.max(0, ...map.relL2.map((value) => value ?? 0));
  const { cell, row } = layout;
  const gap = cell > 3 ? 1 : 0;
  for (let r = 0; r < map.layers.length; r++) {
    for (let expert = 0; expert < map.experts; expert++) {
      const at = r * map.experts + expert;
      const changed = map.changed[at];
      if (changed === null) {
        continue;
      }
      const relL2 = map.relL2[at];
      context.globalAlpha =
        changed && relL2 !== null && top > 0 ? MIN_ALPHA + (1 - MIN_ALPHA) * Math.sqrt(relL2 / top) : 1;
      context.fillStyle = changed ? changedColour : sameColour;
      context.fillRect(LEFT_PX + expert * cell, TOP_PX + r * row, cell - gap, row - gap);
    }
  }
  context.globalAlpha = 1;
  context.fillStyle = textColour;
  context.font = '10px system-ui, sans-serif';
  context.textBaseline = 'middle';
  const rowStep = Math.ceil(LABEL_GAP_PX / row);
  map.layers.forEach(({ layer }, r) => {
    if (r % rowStep === 0) {
      context.fillText(String(layer), 0, TOP_PX + r * row + row / 2);
    }
  });
  const columnStep = [1, 2, 4, 8, 16, 32, 64, 128].find((step) => step * cell >= LABEL_GAP_PX * 2) ?? 256;
  for (let expert = 0; expert < map.experts; expert += columnStep) {
    context.fillText(String(expert), LEFT_PX + expert * cell, TOP_PX / 2);
  }
}

export function ExpertMap({ map }: { map: ExpertChangeMap }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [hover, setHover] = useState<string | null>(null);
  const layout = layoutOf(map);
  useEffect(() => {
    if (canvas.current) {
      draw(canvas.current, map, layoutOf(map));
    }
  }, [map]);
  const onMove = (event: MouseEvent<HTMLCanvasElement>) => {
    // The canvas shrinks with a narrow page (max-width: 100%), so the pointer is scaled back to the drawn layout.
    const box = event.currentTarget.getBoundingClientRect();
    const scale = box.width > 0 ? layout.width / box.width : 1;
    const expert = Math.floor(((event.clientX - box.left) * scale - LEFT_PX) / layout.cell);
    const row = Math.floor(((event.clientY - box.top) * scale - TOP_PX) / layout.row);
    const inside = expert >= 0 && expert < map.experts && row >= 0 && row < map.layers.length;
    setHover(inside ? expertCellText(map, row, expert) : null);
  };
  return (
    <section className="expert-map" aria-label="Experts by layer" data-testid="compare-values-expert-map">
      <h4>Experts by layer</h4>
      <p data-testid="expert-map-summary">{expertMapSummary(map)}</p>
      <canvas
        ref={canvas}
        className="expert-map-canvas"
        style={{ width: layout.width }}
        role="img"
        aria-label={`${expertMapSummary(map)} Each cell is one expert of one layer.`}
        data-testid="expert-map-canvas"
        data-left={LEFT_PX}
        data-top={TOP_PX}
        data-cell={layout.cell}
        data-row={layout.row}
        onMouseMove={onMove}
        onMouseLeave={() => setHover(null)}
      />
      <p className="values-note" data-testid="expert-map-hover">
        {hover ??
          'Rows are layers, columns experts: blue where an expert changed (darker for a larger relative L2), grey where every value is the same, blank where it was not compared. Point at a cell for its figures.'}
      </p>
      <details data-testid="expert-map-layers">
        <summary>Changed experts, layer by layer</summary>
        <ul className="values-scan-list">
          {map.layers.map(({ stack, layer }, row) => (
            <li key={`${stack}${layer}`}>
              <span className="mono">
                {stack}
                {layer}
              </span>
              : {layerExpertsText(map, row)}
            </li>
          ))}
        </ul>
      </details>
    </section>
  );
}
