/**
 * The view tabs, as the WAI-ARIA tabs pattern (https://www.w3.org/WAI/ARIA/apg/patterns/tabs/): one Tab stop (the
 * selected tab), Left/Right move and select (automatic activation; every panel renders at once), Home/End jump.
 *
 * A tab is selected when the primary button goes down, as native tab strips do, not on the click that follows: tabs
 * appear while a load's analyses land, which can move the pressed tab from under the pointer before the release,
 * and the click then goes to the list instead (the press had already focused the tab, so it looked chosen).
 */
import { useRef, type KeyboardEvent, type MouseEvent } from 'react';
import type { Panel } from '../state/view-slice';

export interface ViewTab {
  id: Panel;
  label: string;
}

export function ViewTabs({
  tabs,
  selected,
  onSelect,
}: {
  tabs: readonly ViewTab[];
  selected: Panel;
  onSelect: (panel: Panel) => void;
}) {
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = tabs.findIndex((tab) => tab.id === selected);
    const target =
      event.key === 'ArrowRight'
        ? (index + 1) % tabs.length
        : event.key === 'ArrowLeft'
          ? (index - 1 + tabs.length) % tabs.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? tabs.length - 1
              : null;
    if (target === null || index < 0) {
      return;
    }
    event.preventDefault();
    onSelect(tabs[target].id);
    list.current?.querySelector<HTMLButtonElement>(`#tab-${tabs[target].id}`)?.focus();
  };
  return (
    <div role="tablist" aria-label="Views" className="tabs" ref={list} onKeyDown={onKeyDown}>
      {tabs.map((tab) => (
        <button
          key={tab.id}
          type="button"
          role="tab"
          id={`tab-${tab.id}`}
          aria-selected={selected === tab.id}
          aria-controls={`panel-${tab.id}`}
          tabIndex={selected === tab.id ? 0 : -1}
          onMouseDown={(event: MouseEvent) => {
            if (event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey && !event.altKey) {
              onSelect(tab.id);
            }
          }}
          onClick={() => onSelect(tab.id)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}
