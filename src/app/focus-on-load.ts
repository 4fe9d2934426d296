/**
 * Where the keyboard focus goes when a source has loaded. The control that started the load is often gone by then
 * (a sample button of the first screen, a picker in a replaced view), which leaves the focus on the page body; the
 * result's heading then takes it, so the next Tab starts in the loaded view. Focus that is still somewhere (the URL
 * box, the filter) stays where the user put it.
 *
 * The focus moves after the loaded view is painted: focus() lays the page out, and inside the commit that mounts a
 * million-row view that forced layout is 25 ms more in an already long task.
 */
import { useEffect, type RefObject } from 'react';

function focusIsLost(): boolean {
  const active = document.activeElement;
  return active === null || active === document.body || !active.isConnected;
}

export function useFocusOnLoad(container: RefObject<HTMLElement | null>, loadId: number): void {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => {
        const heading = container.current?.querySelector<HTMLElement>('h2');
        if (!heading || !focusIsLost()) {
          return;
        }
        heading.tabIndex = -1;
        heading.focus();
      }, 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [container, loadId]);
}
