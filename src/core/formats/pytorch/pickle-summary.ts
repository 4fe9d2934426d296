/**
 * What a checkpoint's pickles import and would run, as the report's `pickle` section (PickleSummary), and the safety
 * findings that follow from it: shared by every container the PyTorch reader reads (read-checkpoint.ts) and by DCP
 * metadata (dcp-header.ts).
 */
import { makeFinding } from '../../findings/make-finding';
import { plural } from '../../parse/message-format';
import type { Finding } from '../../model';
import type { NamedTensor } from './anatomy';
import type { CallRecorder } from './call-recorder';
import type { ScriptCode } from './torchscript';
import { MAX_LISTED_GLOBALS } from './checkpoint-limits';
import type { PickleSummary } from './checkpoint-types';
import type { DcpCallCheck } from './dcp-metadata';
import type { PickleRun } from './pickle-machine';
import { classifyGlobals, weightsOnlyVerdict } from './safety';
import type { TorchArchive } from './zip-directory';

export interface PickleStream {
  runs: PickleRun[];
  /** The run whose root is the checkpoint object. */
  main: PickleRun | null;
  bytes: Uint8Array;
  findings: Finding[];
  storageSizes: Map<string, number> | null;
  zip?: TorchArchive;
  /** What the pickles would run: dangerous or computed calls with their arguments. */
  calls: CallRecorder;
  /** For a bare pickle: whether every call is one a DCP `.metadata` writer emits (dcp-metadata.ts). */
  dcpCalls?: DcpCallCheck;
  /** A torch.save archive's `byteorder` record, when it has one. */
  byteOrder?: ByteOrderRecord;
  /** A TorchScript archive's classes, as its code records declare them. */
  scriptCode?: ScriptCode;
}

/** What a `byteorder` record says (torch writes `little` or `big`), or why it could not be read. */
export type ByteOrderRecord = { text: string } | { problem: string };

export function pickleSummary(stream: PickleStream, tensors: readonly NamedTensor[]): PickleSummary {
  const merged = new Map<string, { module: string; name: string; count: number; offset: number }>();
  const opcodes: Record<string, number> = {};
  for (const run of stream.runs) {
    for (const [key, use] of run.globals) {
      const existing = merged.get(key);
      if (existing) {
        existing.count += use.count;
      } else {
        merged.set(key, { ...use });
      }
    }
    for (const [name, count] of run.opcodeCounts) {
      opcodes[name] = (opcodes[name] ?? 0) + count;
    }
  }
  const globals = classifyGlobals(merged.values());
  const hazards = stream.runs.flatMap((run) => run.hazards);
  const storages = new Set(tensors.map((entry) => entry.tensor.storageKey).filter((key) => key !== null));
  return {
    weightsOnly: weightsOnlyVerdict(globals, stream.runs),
    globals: globals.slice(0, MAX_LISTED_GLOBALS).map((use) => {
      const summary: PickleSummary['globals'][number] = {
        module: use.module,
        name: use.name,
        count: use.count,
        risk: use.risk,
        offset: use.offset,
      };
      if (use.reason !== undefined) {
        summary.reason = use.reason;
      }
      return summary;
    }),
    dangerous: globals.filter((use) => use.risk === 'dangerous').length + hazards.length,
    hazards,
    opcodes,
    storages: storages.size,
    protocol: stream.main?.protocol ?? 0,
    pickleBytes: pickleLength(stream),
    calls: stream.calls.list(),
    callsTotal: stream.calls.total,
  };
}

/**
 * Bytes of pickle: all of data.pkl in a zip; in a legacy stream or a bare pickle, up to where the last pickle read
 * stopped (the bytes held may run on into the storages that follow).
 */
function pickleLength(stream: PickleStream): number {
  if (stream.zip || stream.runs.length === 0) {
    return stream.bytes.length;
  }
  return Math.max(...stream.runs.map((run) => run.end));
}

/** " It would run: posix.system('echo pwned')." (the first calls, as the safety panel lists them), or nothing. */
function whatItWouldRun(pickle: PickleSummary): string {
  if (pickle.calls.length === 0) {
    return '';
  }
  const shown = pickle.calls.slice(0, 3).map((call) => call.text);
  const more = pickle.callsTotal - shown.length;
  return ` It would run: ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`;
}

export function safetyFindings(pickle: PickleSummary, runs: readonly PickleRun[], tensors: number): Finding[] {
  const findings: Finding[] = [];
  const dangerous = pickle.globals.filter((use) => use.risk === 'dangerous');
  if (dangerous.length > 0 || pickle.hazards.length > 0) {
    const listed = [
      ...dangerous.map((use) => `${use.module}.${use.name} (${use.reason}; at byte ${use.offset})`),
      ...pickle.hazards.map((hazard) => `${hazard.reason} (at byte ${hazard.offset})`),
    ];
    findings.push(
      makeFinding(
        'pickle-dangerous-global',
        `Do not load this file: unpickling it would call ${listed.slice(0, 6).join('; ')}${listed.length > 6 ? `; and ${listed.length - 6} more` : ''}.${whatItWouldRun(pickle)} Nothing was run here${tensors > 0 ? `; its ${plural(tensors, 'tensor')} below ${tensors === 1 ? 'was' : 'were'} read as data` : ', and it holds no tensor'}. If you need the weights, ask the author for a .safetensors file.`,
      ),
    );
  }
  const unknown = pickle.globals.filter((use) => use.risk === 'unknown');
  if (unknown.length > 0) {
    findings.push(
      makeFinding(
        'pickle-unknown-global',
        `torch.load(..., weights_only=True) refuses this file: it imports ${unknown
          .slice(0, 6)
          .map((use) => `${use.module}.${use.name}`)
          .join(
            ', ',
          )}${unknown.length > 6 ? ` and ${unknown.length - 6} more` : ''}, which are outside torch's allowlist. Loading without weights_only runs their code; that is usually benign for well-known libraries, but cannot be proven.`,
      ),
    );
  }
  const broken = runs.find((run) => !run.complete);
  if (broken?.error) {
    findings.push(
      makeFinding(
        'pickle-unreadable',
        `The pickle could not be read to its end: ${broken.error.reason} (at byte ${broken.error.offset}). torch.load would fail too, possibly after running part of it; the tensors and imports listed are those read before that point.`,
      ),
    );
  }
  return findings;
}
