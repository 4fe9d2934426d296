// First: the Trusted Types policy must exist before anything creates a worker or touches a DOM sink.
import './app/trusted-types';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { ErrorBoundary } from './app/ErrorBoundary';
import './app/app.css';
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
