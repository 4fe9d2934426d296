/** What a bar chart of the app shows: one value per category, drawn by lib/bars/Bars.tsx (recharts). */
export interface BarsSpec<Row extends object> {
  data: readonly Row[];
  /** Pixels; the chart's box has this height before the chart is drawn, so nothing moves when it arrives. */
  height: number;
  /** `vertical`: one horizontal bar per category, categories down the side. `horizontal`: columns along the bottom. */
  layout: 'vertical' | 'horizontal';
  categoryKey: keyof Row & string;
  valueKey: keyof Row & string;
  /** The value's name in the tooltip (the value key by default). */
  valueName?: string;
  formatValue?: (value: number) => string;
  /** The tooltip's title for a bar (its category by default). */
  tooltipTitle?: (row: Row) => string;
  /** Width of the category labels (vertical) or value labels (horizontal), in pixels. */
  labelWidth?: number;
  /** Draw every value tick without measuring labels first (a handful of ticks that always fit). */
  everyValueTick?: boolean;
  /** A horizontal chart shows only the first and last category labels when they crowd. */
  sparseCategoryLabels?: boolean;
  grid?: boolean;
  onBarClick?: (row: Row) => void;
}
