import { describe, expect, it } from 'vitest';
import { MAX_IN_PLACE_READ_BYTES, STREAM_READ_BYTES } from '../core/limits';
import { ReadBuffer } from './read-buffer';

/** What a BYOB read does with a view: moves its buffer and gives back a view of `filled` bytes over the moved one. */
function fillByob(view: Uint8Array, bytes: number[]): Uint8Array {
  view.set(bytes);
  const moved = structuredClone(view.buffer, { transfer: [view.buffer] });
  return new Uint8Array(moved, view.byteOffset, bytes.length);
}

describe('ReadBuffer', () => {
  it('a kept read fills its result in place when the first read brings every byte', () => {
    const buffer = new ReadBuffer(true);
    const room = buffer.room(4);
    const chunk = fillByob(room, [1, 2, 3, 4]);
    buffer.put(chunk, true);
    const bytes = buffer.bytes();
    expect([...bytes]).toEqual([1, 2, 3, 4]);
    // The result is the memory the read filled, not a copy.
    expect(bytes.buffer).toBe(chunk.buffer);
  });

  it('a kept read copies later pieces in from a scratch, and a failed read keeps every byte received', () => {
    const buffer = new ReadBuffer(true);
    buffer.put(fillByob(buffer.room(6), [1, 2]), true);
    const scratch = buffer.room(4);
    expect(scratch.buffer.byteLength).toBeGreaterThanOrEqual(4);
    // The read into the scratch fails: its buffer is gone, the bytes already held are not.
    structuredClone(scratch.buffer, { transfer: [scratch.buffer] });
    buffer.lost();
    expect(buffer.filled).toBe(2);
    buffer.put(fillByob(buffer.room(4), [3, 4, 5, 6]), true);
    expect([...buffer.bytes()]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a kept read whose first read fails lends the next one fresh memory', () => {
    const buffer = new ReadBuffer(true);
    const room = buffer.room(3);
    structuredClone(room.buffer, { transfer: [room.buffer] });
    buffer.lost();
    expect(buffer.filled).toBe(0);
    buffer.put(fillByob(buffer.room(3), [7, 8, 9]), true);
    expect([...buffer.bytes()]).toEqual([7, 8, 9]);
  });

  it('a shorter answer than its room gives back just the bytes that came', () => {
    const buffer = new ReadBuffer(true);
    buffer.put(fillByob(buffer.room(8), [1, 2, 3]), true);
    expect([...buffer.bytes()]).toEqual([1, 2, 3]);
  });

  it('a kept read whose answer promises more than the in-place bound grows with the bytes that arrive', () => {
    const buffer = new ReadBuffer(true);
    const room = buffer.room(MAX_IN_PLACE_READ_BYTES + 1);
    expect(room.length).toBe(STREAM_READ_BYTES);
    buffer.put(fillByob(room, [1, 2, 3]), true);
    const bytes = buffer.bytes();
    expect([...bytes]).toEqual([1, 2, 3]);
    expect(bytes.buffer.byteLength).toBeLessThan(1024);
  });

  it('a streamed read refills one scratch and keeps nothing', () => {
    const seen: number[][] = [];
    const buffer = new ReadBuffer(false, (chunk, soFar) => seen.push([...chunk, soFar]));
    const first = fillByob(buffer.room(1_000_000), [1, 2]);
    buffer.put(first, true);
    const second = buffer.room(1_000_000);
    expect(second.buffer).toBe(first.buffer);
    buffer.put(fillByob(second, [3]), true);
    expect(seen).toEqual([
      [1, 2, 2],
      [3, 3],
    ]);
    expect(buffer.bytes().length).toBe(0);
  });

  it("takes a stream's own chunks when the body is not a byte stream, and then keeps taking them", () => {
    const buffer = new ReadBuffer(true);
    buffer.put(new Uint8Array([1, 2]), false);
    expect(buffer.takesRoom).toBe(false);
    buffer.put(new Uint8Array([3]), false);
    expect([...buffer.bytes()]).toEqual([1, 2, 3]);
  });
});
