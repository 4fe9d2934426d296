/** First-read sizing for shard headers (connection.ts sizedFirstRead). */
import { describe, expect, it } from 'vitest';
import { ShardIndexScanner } from '../core/shards/index-parser';
import { HTTP1_MAX_SPANS, REMOTE_MAX_SPANS } from '../core/limits';
import { analysisSpanLimit, sizedFirstRead } from './connection';

describe('sizedFirstRead', () => {
  it('reads the default until a header was seen', () => {
    expect(sizedFirstRead({ largestHead: 0, bytesPerEntry: 0 })).toBeUndefined();
  });

  it('without the index: the largest header seen plus a margin, at least 4 KiB', () => {
    expect(sizedFirstRead({ largestHead: 72_000, bytesPerEntry: 60 })).toBe(74_240);
    expect(sizedFirstRead({ largestHead: 304, bytesPerEntry: 100 })).toBe(4096);
  });

  it("from the index's names: a small first header does not size a shard the index says is large", () => {
    const named = { tensors: 565, nameBytes: 30_000, complete: true };
    // 30,000 + 565 × 70 = 69,550 bytes, plus 3 %, rounded up to 512.
    expect(sizedFirstRead({ largestHead: 304, bytesPerEntry: 70 }, named)).toBe(71_680);
    // A complete index also lets a small shard ask for little after a large one.
    expect(
      sizedFirstRead({ largestHead: 72_000, bytesPerEntry: 70 }, { tensors: 3, nameBytes: 90, complete: true }),
    ).toBe(4096);
    // While the index streams its figures are a lower bound: the largest header seen still counts.
    expect(sizedFirstRead({ largestHead: 72_000, bytesPerEntry: 70 }, { ...named, tensors: 10, complete: false })).toBe(
      74_240,
    );
  });

  it("the scanner counts each shard's names as the weight_map streams", () => {
    const scanner = new ShardIndexScanner();
    const text = '{"weight_map": {"a.weight": "s1", "bb.weight": "s2", "a.weight": "s1", "c.bias": "s2"}}';
    scanner.push(new TextEncoder().encode(text));
    expect(scanner.shardName(1)).toBe('s2');
    expect(scanner.namedInShard(0)).toEqual({ tensors: 1, nameBytes: 8 });
    expect(scanner.namedInShard(1)).toEqual({ tensors: 2, nameBytes: 15 });
    expect(scanner.namedInShard(5)).toEqual({ tensors: 0, nameBytes: 0 });
  });
});

describe('analysisSpanLimit', () => {
  it('sizes the analysis reads to the connection: all at once where requests multiplex, two rounds of six on HTTP/1.1', () => {
    // No Resource Timing entry says the protocol here: the host decides (the Hub multiplexes).
    expect(analysisSpanLimit('https://huggingface.co/org/model/resolve/main/model.safetensors', null)).toBe(
      REMOTE_MAX_SPANS,
    );
    expect(analysisSpanLimit('https://files.example.org/model.safetensors', null)).toBe(HTTP1_MAX_SPANS);
    expect(HTTP1_MAX_SPANS).toBe(12);
  });
});
