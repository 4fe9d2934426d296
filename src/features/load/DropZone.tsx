/**
 * Drag-and-drop anywhere on the page (files or whole folders), plus keyboard-accessible file and folder pickers.
 * A new drop replaces the view; several files (a model folder) are grouped into models by the worker.
 */
import { useEffect, useState } from 'react';
import { collectDrop } from './dropped-files';
import { readableFormatsPhrase } from './format-names';
import { FilesPickerButton } from './SourceInputs';
import { useAppStore } from '../../state/store';

function hasFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes('Files');
}

export function useFileDrop(): boolean {
  const openFiles = useAppStore((state) => state.openFiles);
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
      if (event.dataTransfer) {
        // Entries must be taken during the event; walking folders happens afterwards.
        void collectDrop(event.dataTransfer).then((files) => openFiles(files));
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
  }, [openFiles]);
  return dragging;
}

export function DropOverlay({ visible }: { visible: boolean }) {
  if (!visible) {
    return null;
  }
  return (
    <div className="drop-overlay" aria-hidden="true">
      <div>Drop a model file (or a model folder) to see what is inside</div>
      <small>{readableFormatsPhrase()}</small>
      <small>No weight is read until you ask for its values. Nothing leaves your machine.</small>
    </div>
  );
}

/** Opens the picked files as the main source (A). */
export function FilePickerButton({ label = 'Choose file' }: { label?: string }) {
  const openFiles = useAppStore((state) => state.openFiles);
  return <FilesPickerButton label={label} testId="file-input" onFiles={openFiles} />;
}

/** Opens a picked folder (a sharded model with its index and config.json) as the main source (A). */
export function FolderPickerButton({ label = 'Choose folder' }: { label?: string }) {
  const openFiles = useAppStore((state) => state.openFiles);
  return <FilesPickerButton folder label={label} testId="folder-input" onFiles={openFiles} />;
}
