/**
 * A chart whose code cannot be fetched (the site was redeployed under the open page, or the network dropped) says so
 * in its box; the rest of the view, whose figures never depend on the chart, stays.
 */
import { Component, type ReactNode } from 'react';

interface Props {
  children: ReactNode;
  /** Called once the error is shown, so the next chart of the page gets its turn (lib/mount-in-turn). */
  onError: () => void;
}

export class ChartLoadBoundary extends Component<Props, { failed: string | null }> {
  override state = { failed: null as string | null };

  static getDerivedStateFromError(error: unknown): { failed: string } {
    return { failed: error instanceof Error ? error.message : String(error) };
  }

  override componentDidCatch(): void {
    this.props.onError();
  }

  override render(): ReactNode {
    if (this.state.failed !== null) {
      return (
        <p className="notice" role="status" data-testid="chart-unavailable">
          This chart could not be drawn: its code did not load ({this.state.failed}). The same figures are in the table
          and the report; reloading the page fetches the chart again.
        </p>
      );
    }
    return this.props.children;
  }
}
