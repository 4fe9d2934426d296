import type { ParsedHeader } from '../../core/model';
import type { DcpSummary, FileFormat } from '../../core/formats/sections';
import { plural } from '../../core/number-format';

/** How the verdict line and the Checkpoint tab name the container (with its header: a TorchScript archive apart). */
export function formatLabel(format: FileFormat | undefined, header?: ParsedHeader): string {
  switch (format) {
    case 'pytorch-zip':
      return header?.checkpoint?.rootScripted
        ? 'TorchScript module (torch.jit.save zip)'
        : 'PyTorch checkpoint (torch.save zip)';
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

/** What a Distributed Checkpoint's bytes entries (which dcp.load unpickles with weights_only=False) come to. */
export interface DcpBytesVerdict {
  level: 'dangerous' | 'unknown' | 'unread' | 'safe';
  /** Entries at that level. */
  count: number;
}

export function dcpBytesVerdict(dcp: DcpSummary): DcpBytesVerdict | null {
  const entries = dcp.byteEntries;
  if (entries.length === 0) {
    return null;
  }
  for (const level of ['dangerous', 'unknown', 'unread'] as const) {
    const count = entries.filter((entry) => (entry.check ?? 'unread') === level).length;
    if (count > 0) {
      return { level, count };
    }
  }
  return { level: 'safe', count: entries.length };
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
    const bytes = dcpBytesVerdict(header.dcp);
    if (bytes?.level === 'dangerous') {
      return `✖ dangerous: a full dcp.load would run code from ${plural(bytes.count, 'bytes entry', 'bytes entries')}; its tensors alone load safely`;
    }
    if (header.findings.some((finding) => finding.severity === 'error')) {
      return '✖ torch.distributed.checkpoint would fail to load it (see the findings)';
    }
    if (bytes?.level === 'unknown' || bytes?.level === 'unread') {
      const what = bytes.level === 'unknown' ? 'import outside torch’s allowlist' : 'could not be checked';
      return `⚠ DCP's own metadata classes, but ${plural(bytes.count, 'bytes entry', 'bytes entries')} ${what}: a full dcp.load unpickles them with weights_only=False`;
    }
    return bytes
      ? "✔ only DCP's own metadata classes and plain bytes entries: torch.distributed.checkpoint would read it; nothing was run here"
      : "✔ only DCP's own metadata classes: torch.distributed.checkpoint would read it; nothing was run here";
  }
  if (pickle.dangerous > 0) {
    return '✖ dangerous: loading this file would run code; the reference loader would refuse it (torch.load with weights_only=True)';
  }
  return pickle.weightsOnly === 'accepts'
    ? '✔ the reference loader would accept it (torch.load with weights_only=True); nothing was run to read it'
    : '✖ the reference loader would refuse it (torch.load with weights_only=True)';
}
