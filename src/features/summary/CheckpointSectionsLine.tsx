/**
 * Under a checkpoint's verdict: what the headline counted (the model-weights section) and, apart, every other
 * section that holds tensors (optimizer moments, EMA copies, …) with its own counts, so training state is never
 * read as part of the model.
 */
import type { CheckpointSummary } from '../../core/formats/pytorch/checkpoint-types';
import { formatBytes, formatCount, plural } from '../../core/number-format';

export function CheckpointSectionsLine({ checkpoint }: { checkpoint: CheckpointSummary }) {
  const weights = checkpoint.sections.find((section) => section.kind === 'weights');
  const others = checkpoint.sections.filter((section) => section.kind !== 'weights' && section.tensors > 0);
  if (others.length === 0) {
    return null;
  }
  return (
    <p className="muted checkpoint-sections-line" data-testid="checkpoint-sections-line">
      {weights ? (
        <>
          Parameters counted in <code>{weights.path || '(root)'}</code> ({plural(weights.tensors, 'tensor')}, the model
          weights); counted apart:{' '}
        </>
      ) : (
        'No section holds model weights; the tensors are in: '
      )}
      {others.map((section, index) => (
        <span key={section.path} data-testid={`checkpoint-section-${section.kind}`}>
          {index > 0 && '; '}
          <code>{section.path}</code> ({section.kind}) {plural(section.tensors, 'tensor')},{' '}
          {formatCount(section.parameters)} elements, {formatBytes(section.bytes)}
        </span>
      ))}
      .
    </p>
  );
}
