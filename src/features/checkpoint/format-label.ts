import type { ParsedHeader } from '../../core/model';
import type { FileFormat } from '../../core/formats/sections';

/** How the verdict line and the Checkpoint tab name the container. */
export function formatLabel(format: FileFormat | undefined): string {
  switch (format) {
    case 'pytorch-zip':
      return 'PyTorch checkpoint (torch.save zip)';
    case 'pytorch-legacy':
      return 'PyTorch checkpoint (legacy, torch < 1.6)';
    case 'pickle':
      return 'Python pickle';
    case 'pytorch-dcp':
      return 'PyTorch Distributed Checkpoint (.metadata)';
    default:
      return 'safetensors';
  }
}

/** What the pickle stat is called: only a torch.save zip has a data.pkl; a legacy file is a run of pickles. */
export function pickleLabel(format: FileFormat | undefined): string {
  switch (format) {
    case 'pytorch-zip':
      return 'Pickle (data.pkl)';
    case 'pytorch-legacy':
      return 'Pickles (legacy stream)';
    case 'pytorch-dcp':
      return 'Pickle (.metadata)';
    default:
      return 'Pickle';
  }
}

/** The integrity line for a checkpoint: what torch's weights-only loader would do, and whether loading runs code. */
export function checkpointIntegrity(header: ParsedHeader): string | null {
  const pickle = header.pickle;
  if (!pickle) {
    return null;
  }
  if (header.format === 'pytorch-dcp') {
    if (!header.dcp?.ownClassesOnly) {
      return '✖ the pickle imports or calls more than DCP writes, and torch.distributed.checkpoint unpickles it unchecked';
    }
    return header.findings.some((finding) => finding.severity === 'error')
      ? '✖ torch.distributed.checkpoint would fail to load it (see the findings)'
      : "✔ only DCP's own metadata classes: torch.distributed.checkpoint would read it; nothing was run here";
  }
  if (pickle.dangerous > 0) {
    return '✖ dangerous: loading this file would run code; the reference loader would refuse it (torch.load with weights_only=True)';
  }
  return pickle.weightsOnly === 'accepts'
    ? '✔ the reference loader would accept it (torch.load with weights_only=True); nothing was run to read it'
    : '✖ the reference loader would refuse it (torch.load with weights_only=True)';
}
