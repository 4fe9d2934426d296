/**
 * torchao tensor subclasses flattened into safetensors (docs/format-notes.md#quantization-signatures-other-engines;
 * pytorch/ao torchao/prototype/safetensors/safetensors_support.py). Two spellings exist:
 * - `<tensor>:<field>` (e.g. `0.weight:qdata`, `0.weight:scale`) with metadata `<tensor>:tensor_type` =
 *   "<class 'torchao.quantization.Float8Tensor'>" and `<tensor>:block_size` (the real pytorch/ao test file);
 * - `<module>._<param>_<field>` (e.g. `q_proj._weight_qdata`) with metadata `<module>.<param>` = JSON
 *   {"_type": "Float8Tensor", "_data": {…}} and a `tensor_names` list.
 * Float8/Int8 qdata keeps the original shape; Int4 variants pack two values per byte (eight per I32).
 */
import { asString, isRecord, parseJsonText } from '../values';
import { mode, type QuantDetector, type QuantModule } from './quant-types';
import { ModuleList } from './module-list';

const RE_COLON_FIELD = /^(.+):([A-Za-z_]+)$/;
const RE_UNDERSCORE_QDATA = /^(.+)\._([A-Za-z0-9]+)_qdata$/;
/** `<module>._<param>_<field>`: the param has no underscore, the field may (`zero_point`). */
const RE_UNDERSCORE_FIELD = /^(.*\._[A-Za-z0-9]+_)[A-Za-z_]+$/;

function typeName(raw: string | null): string | null {
  if (!raw) {
    return null;
  }
  const cls = /([A-Za-z0-9_]+)'?>?$/.exec(raw.trim());
  return cls ? cls[1] : raw;
}

function bitsOf(type: string): number | null {
  if (/^Int4|NVFP4|MX/.test(type)) {
    return 4;
  }
  if (/^Float8|^Int8/.test(type)) {
    return 8;
  }
  return null;
}

function valuesPerElement(type: string, dtype: string): number {
  if (!/^Int4/.test(type)) {
    return 1;
  }
  return dtype === 'I32' ? 8 : 2;
}

export const torchaoDetector: QuantDetector = {
  family: 'torchao',
  detect(context) {
    const { index, claimed } = context;
    const metadata = index.metadata;
    const modules: QuantModule[] = [];
    const types: string[] = [];
    const granularities: string[] = [];
    let spelling = '';
    let groups: Map<string, number[]> | null = null;
    // Both spellings end in `qdata`; the regexes run only on those few names.
    for (const row of index.rowsEndingWith('qdata')) {
      const name = index.names[row];
      if (claimed[row]) {
        continue;
      }
      let original: string;
      let module: string;
      let type: string | null;
      let prefix: string;
      const colon = RE_COLON_FIELD.exec(name);
      const underscore = colon ? null : RE_UNDERSCORE_QDATA.exec(name);
      if (colon && colon[2] === 'qdata') {
        original = colon[1];
        module = original.endsWith('.weight') ? original.slice(0, -'.weight'.length) : original;
        type = typeName(metadata.get(`${original}:tensor_type`) ?? null);
        prefix = `${original}:`;
        spelling = 'tensor:field';
      } else if (underscore) {
        module = underscore[1];
        original = `${module}.${underscore[2]}`;
        const meta = parseJsonText(metadata.get(original));
        type = isRecord(meta) ? asString(meta._type) : null;
        prefix = `${module}._${underscore[2]}_`;
        spelling = 'module._param_field';
      } else {
        continue;
      }
      if (type === null && !metadata.has('tensor_names')) {
        continue;
      }
      const resolved = type ?? 'unknown';
      types.push(resolved);
      const rows: number[] = [];
      groups ??= fieldGroups(index.names);
      for (const sibling of groups.get(prefix) ?? [row]) {
        if (!claimed[sibling]) {
          rows.push(sibling);
        }
      }
      const blockSize = parseJsonText(metadata.get(`${original}:block_size`));
      if (Array.isArray(blockSize) && blockSize.length === 2 && index.rank(row) === 2) {
        const [b0, b1] = blockSize as number[];
        granularities.push(
          b0 === index.dim(row, 0) && b1 === index.dim(row, 1)
            ? 'tensor'
            : b0 === 1 && b1 === index.dim(row, 1)
              ? 'channel'
              : 'group',
        );
      }
      modules.push({
        name: module,
        weightRow: row,
        rows,
        logicalParams: index.elements(row) * valuesPerElement(resolved, index.dtype(row)),
      });
    }
    if (modules.length === 0) {
      return null;
    }
    const type = mode(types) ?? 'unknown';
    return {
      family: 'torchao',
      format: type,
      bits: bitsOf(type),
      groupSize: null,
      granularity: (mode(granularities) as 'tensor' | 'channel' | 'group' | null) ?? null,
      weightDtype: mode(modules.map((m) => index.dtype(m.weightRow))),
      modules: ModuleList.of(modules),
      auxRows: [],
      confidence: type === 'unknown' ? 'medium' : 'high',
      evidence: [
        `${modules.length} torchao ${type} tensor(s) flattened as ${spelling === 'tensor:field' ? '`<tensor>:qdata` / `:scale`' : '`<module>._<param>_qdata`'}, typed by __metadata__`,
      ],
      findings: [],
    };
  },
};

/**
 * Groups flattened subclass fields by their shared prefix (`<tensor>:` or `<module>._<param>_`) in one pass:
 * the writer sorts tensors by dtype, so a subclass's F32 scale and F8 qdata can sit far apart.
 */
function fieldGroups(names: readonly string[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (let row = 0; row < names.length; row++) {
    const name = names[row];
    const colon = name.lastIndexOf(':');
    let key: string | null = null;
    if (colon > 0) {
      key = name.slice(0, colon + 1);
    } else if (name.includes('._')) {
      const match = RE_UNDERSCORE_FIELD.exec(name);
      key = match ? match[1] : null;
    }
    if (key !== null) {
      const list = groups.get(key);
      if (list) {
        list.push(row);
      } else {
        groups.set(key, [row]);
      }
    }
  }
  return groups;
}
