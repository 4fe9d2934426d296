/**
 * The flexible column's resize handle (a WAI-ARIA window splitter): drag it, or focus it and use the arrow keys;
 * double-click, Home or Escape give the column back its automatic width. `rendered` is the column's width on screen,
 * for the handle's aria-valuenow and the name budget (it changes with the window).
 */
import {
  useEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type PointerEvent as ReactPointerEvent,
  type RefObject,
} from 'react';

/** The flexible column never gets narrower than this by dragging. */
export const MIN_FLEX_WIDTH_PX = 120;
/** The resize handle's upper bound (a name column wider than a 4K screen helps no one). */
export const MAX_FLEX_WIDTH_PX = 4000;
/** One arrow press on the resize handle. */
const RESIZE_STEP_PX = 24;

function clampFlex(width: number): number {
  return Math.min(MAX_FLEX_WIDTH_PX, Math.max(MIN_FLEX_WIDTH_PX, Math.round(width)));
}

export function useColumnResize(): {
  /** The width the user chose, or null for the automatic one. */
  flexWidth: number | null;
  rendered: number;
  headerRef: RefObject<HTMLDivElement | null>;
  handleProps: {
    onPointerDown: (event: ReactPointerEvent<HTMLDivElement>) => void;
    onDoubleClick: () => void;
    onKeyDown: (event: KeyboardEvent<HTMLDivElement>) => void;
  };
} {
  const [flexWidth, setFlexWidth] = useState<number | null>(null);
  const [rendered, setRendered] = useState(0);
  const headerRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const cell = headerRef.current;
    if (!cell || typeof ResizeObserver === 'undefined') {
      return;
    }
    const observer = new ResizeObserver(() => setRendered(Math.round(cell.getBoundingClientRect().width)));
    observer.observe(cell);
    return () => observer.disconnect();
  }, []);

  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    const headerCell = event.currentTarget.parentElement;
    if (!headerCell) {
      return;
    }
    event.preventDefault();
    const startX = event.clientX;
    const startWidth = headerCell.getBoundingClientRect().width;
    const handle = event.currentTarget;
    handle.setPointerCapture(event.pointerId);
    const onMove = (move: PointerEvent) => setFlexWidth(clampFlex(startWidth + move.clientX - startX));
    const onUp = () => {
      handle.removeEventListener('pointermove', onMove);
      handle.removeEventListener('pointerup', onUp);
    };
    handle.addEventListener('pointermove', onMove);
    handle.addEventListener('pointerup', onUp);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      event.preventDefault();
      const current = flexWidth ?? event.currentTarget.parentElement?.getBoundingClientRect().width ?? 300;
      setFlexWidth(clampFlex(current + (event.key === 'ArrowRight' ? RESIZE_STEP_PX : -RESIZE_STEP_PX)));
    } else if (event.key === 'Home' || event.key === 'Escape') {
      event.preventDefault();
      setFlexWidth(null);
    }
  };

  return {
    flexWidth,
    rendered,
    headerRef,
    handleProps: { onPointerDown, onDoubleClick: () => setFlexWidth(null), onKeyDown },
  };
}
