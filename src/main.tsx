// First: the Trusted Types policy must exist before anything creates a worker or touches a DOM sink.
import './lib/trusted-types';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { ErrorBoundary } from './app/ErrorBoundary';
// The app's styles, split by what they style; this order is the cascade order (later rules win ties).
import './app/styles/base.css';
import './app/styles/layout.css';
import './app/styles/load.css';
import './app/styles/result.css';
import './app/styles/table.css';
import './app/styles/panels.css';
import { applyTheme, savedTheme } from './app/theme';

// Before the first render, so a chosen theme never flashes the other one.
applyTheme(savedTheme());

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <ErrorBoundary>
        <App />
      </ErrorBoundary>
    </StrictMode>,
  );
}
