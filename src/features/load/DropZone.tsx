/** Drag-and-drop anywhere on the page, plus a keyboard-accessible file picker. A new drop replaces the view. */
import { useEffect, useRef, useState } from 'react';
import { useAppStore } from '../../state/store';

function hasFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes('Files');
}

export function useFileDrop(): boolean {
  const openSource = useAppStore((state) => state.openSource);
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    let depth = 0;
    const onEnter = (event: DragEvent) => {
      if (!hasFiles(event)) {
        return;
      }
      event.preventDefault();
      depth++;
      setDragging(true);
    };
    const onOver = (event: DragEvent) => {
      if (hasFiles(event)) {
        event.preventDefault();
        if (event.dataTransfer) {
          event.dataTransfer.dropEffect = 'copy';
        }
      }
    };
    const onLeave = () => {
      depth = Math.max(0, depth - 1);
      if (depth === 0) {
        setDragging(false);
      }
    };
    const onDrop = (event: DragEvent) => {
      if (!hasFiles(event)) {
        return;
      }
      event.preventDefault();
      depth = 0;
      setDragging(false);
      const file = event.dataTransfer?.files[0];
      if (file) {
        void openSource({ kind: 'file', file });
      }
    };
    window.addEventListener('dragenter', onEnter);
    window.addEventListener('dragover', onOver);
    window.addEventListener('dragleave', onLeave);
    window.addEventListener('drop', onDrop);
    return () => {
      window.removeEventListener('dragenter', onEnter);
      window.removeEventListener('dragover', onOver);
      window.removeEventListener('dragleave', onLeave);
      window.removeEventListener('drop', onDrop);
    };
  }, [openSource]);
  return dragging;
}

export function DropOverlay({ visible }: { visible: boolean }) {
  if (!visible) {
    return null;
  }
  return (
    <div className="drop-overlay" aria-hidden="true">
      <div>Drop a .safetensors file to inspect its header</div>
      <small>Only the header is read. Nothing leaves your machine.</small>
    </div>
  );
}

export function FilePickerButton({ label = 'Choose file' }: { label?: string }) {
  const openSource = useAppStore((state) => state.openSource);
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" onClick={() => input.current?.click()}>
        {label}
      </button>
      <input
        ref={input}
        type="file"
        accept=".safetensors,.sft,application/octet-stream"
        data-testid="file-input"
        hidden
        onChange={(event) => {
          const file = event.target.files?.[0];
          if (file) {
            void openSource({ kind: 'file', file });
          }
          event.target.value = '';
        }}
      />
    </>
  );
}
