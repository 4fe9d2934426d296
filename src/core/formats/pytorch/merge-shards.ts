/**
 * The checkpoint sections (format, pickle safety, anatomy) of a model sharded into PyTorch `.bin` files, merged the
 * way aggregateShards merges the tensor columns: present shards in shard order. Globals add up their counts, the
 * weights-only verdict refuses when any shard would be refused, and per-row details stay parallel to the rows.
 */
import type { CheckpointSummary, PickleGlobalSummary, PickleSummary } from './checkpoint-types';
import type { ParsedHeader } from '../../model';
import { MAX_LISTED_CALLS } from './checkpoint-limits';

export type CheckpointSections = Pick<ParsedHeader, 'format' | 'pickle' | 'checkpoint'>;

/** Null unless every present shard is a checkpoint with both sections (a mix with safetensors shards has none). */
export function mergeCheckpointSections(headers: ReadonlyArray<ParsedHeader | null>): CheckpointSections | null {
  const present = headers.filter((header): header is ParsedHeader => header !== null);
  if (present.length === 0 || present.some((header) => !header.format || !header.pickle || !header.checkpoint)) {
    return null;
  }
  return {
    format: present[0].format,
    pickle: mergePickles(present.map((header) => header.pickle as PickleSummary)),
    checkpoint: mergeAnatomy(present.map((header) => header.checkpoint as CheckpointSummary)),
  };
}

function mergePickles(pickles: readonly PickleSummary[]): PickleSummary {
  const globals = new Map<string, PickleGlobalSummary>();
  const opcodes: Record<string, number> = {};
  const hazards: PickleSummary['hazards'] = [];
  let storages = 0;
  let pickleBytes = 0;
  const calls: PickleSummary['calls'] = [];
  let callsTotal = 0;
  let protocol = 0;
  for (const pickle of pickles) {
    for (const global of pickle.globals) {
      const key = `${global.module}\0${global.name}`;
      const known = globals.get(key);
      if (known) {
        known.count += global.count;
      } else {
        globals.set(key, { ...global });
      }
    }
    for (const [opcode, count] of Object.entries(pickle.opcodes)) {
      opcodes[opcode] = (opcodes[opcode] ?? 0) + count;
    }
    hazards.push(...pickle.hazards);
    storages += pickle.storages;
    pickleBytes += pickle.pickleBytes;
    calls.push(...pickle.calls.slice(0, MAX_LISTED_CALLS - calls.length));
    callsTotal += pickle.callsTotal;
    protocol = Math.max(protocol, pickle.protocol);
  }
  const merged = [...globals.values()];
  return {
    weightsOnly: pickles.some((pickle) => pickle.weightsOnly === 'refuses') ? 'refuses' : 'accepts',
    globals: merged,
    dangerous: merged.filter((global) => global.risk === 'dangerous').length + hazards.length,
    hazards,
    opcodes,
    storages,
    protocol,
    pickleBytes,
    calls,
    callsTotal,
  };
}

function mergeAnatomy(parts: readonly CheckpointSummary[]): CheckpointSummary {
  const first = parts[0];
  const sections = new Map<string, CheckpointSummary['sections'][number]>();
  const merged: CheckpointSummary = {
    weights: first.weights,
    weightsPrefix: first.weightsPrefix,
    sections: [],
    scalars: [],
    tied: [],
    views: [],
    composites: [],
    sharedNames: 0,
    rows: { model: [], storage: [], offset: [], stride: [] },
  };
  for (const part of parts) {
    for (const section of part.sections) {
      const known = sections.get(section.path);
      if (known) {
        known.tensors += section.tensors;
        known.bytes += section.bytes;
        known.elements += section.elements;
        known.parameters += section.parameters;
        known.shared += section.shared;
      } else {
        sections.set(section.path, { ...section });
      }
    }
    // A prefix all shards share stays; shards that disagree have none to strip.
    if (part.weightsPrefix !== merged.weightsPrefix) {
      merged.weightsPrefix = '';
    }
    merged.scalars.push(...part.scalars);
    merged.tied.push(...part.tied);
    merged.composites.push(...part.composites);
    merged.views.push(...part.views);
    merged.sharedNames += part.sharedNames;
    merged.rows.model.push(...part.rows.model);
    merged.rows.storage.push(...part.rows.storage);
    merged.rows.offset.push(...part.rows.offset);
    merged.rows.stride.push(...part.rows.stride);
    merged.epoch ??= part.epoch;
    merged.globalStep ??= part.globalStep;
  }
  merged.sections = [...sections.values()];
  return merged;
}
