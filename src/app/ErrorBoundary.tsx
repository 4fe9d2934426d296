/** Last resort for rendering bugs. Bad input never lands here: it becomes findings or a load error. */
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  error: Error | null;
}

export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('Safetensors Lens crashed while rendering', error, info.componentStack);
  }

  override render(): ReactNode {
    if (this.state.error) {
      return (
        <main className="crash" role="alert">
          <h1>Something in the viewer broke</h1>
          <p>
            This is a bug in Safetensors Lens, not a problem with your file. Reload the page to start again. Error:{' '}
            <code>{this.state.error.message}</code>
          </p>
          <button type="button" onClick={() => location.reload()}>
            Reload
          </button>
        </main>
      );
    }
    return this.props.children;
  }
}
