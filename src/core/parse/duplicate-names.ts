/**
 * Finds tensor names that occur more than once, comparing UTF-8 name bytes through an open-addressing hash table
 * (hashes were computed while the scanner copied the names), so no name is ever decoded to a string.
 */
import type { TensorColumns } from '../model';

/** Keeps the table at most half full so linear probing stays short. */
const TABLE_LOAD_FACTOR_INVERSE = 2;
const MIN_TABLE_SIZE = 16;

function sameName(columns: TensorColumns, a: number, b: number): boolean {
  const { nameBytes, nameStarts } = columns;
  const startA = nameStarts[a];
  const startB = nameStarts[b];
  const length = nameStarts[a + 1] - startA;
  if (nameStarts[b + 1] - startB !== length) {
    return false;
  }
  for (let i = 0; i < length; i++) {
    if (nameBytes[startA + i] !== nameBytes[startB + i]) {
      return false;
    }
  }
  return true;
}

/** Groups of rows sharing one name, each in header order; empty when every name is unique. */
export function findDuplicateNameGroups(columns: TensorColumns, nameHash: Int32Array): number[][] {
  const count = columns.count;
  let size = MIN_TABLE_SIZE;
  while (size < count * TABLE_LOAD_FACTOR_INVERSE) {
    size *= 2;
  }
  const mask = size - 1;
  // Slot value is row + 1 so zero can mean empty.
  const table = new Int32Array(size);
  let groups: Map<number, number[]> | null = null;
  for (let row = 0; row < count; row++) {
    const hash = nameHash[row];
    let slot = hash & mask;
    for (;;) {
      const occupant = table[slot] - 1;
      if (occupant < 0) {
        table[slot] = row + 1;
        break;
      }
      if (nameHash[occupant] === hash && sameName(columns, occupant, row)) {
        groups ??= new Map();
        const group = groups.get(occupant);
        if (group) {
          group.push(row);
        } else {
          groups.set(occupant, [occupant, row]);
        }
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  return groups ? [...groups.values()] : [];
}
