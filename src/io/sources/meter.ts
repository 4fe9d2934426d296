/**
 * Requests, bytes and sequential round trips of one load, in total and by what they were for (header, index,
 * sidecars, analysis data, Hub API, a restarted first attempt), so the status line and the report can say which
 * reads were for what (issue 14). Every reader of a load is added here; readers report each request (a local file
 * each slice) to it (ByteReader.observe), direct fetches (the Hub listing, the commit lookup) are added by hand.
 *
 * Round trips: a request sent after another had fully arrived is one round trip later than it, so the load's round
 * trips are its longest such chain. Computed as it goes: each request starts one past the deepest request finished
 * so far. A purpose's round trips count the chain's steps that had a request of that purpose.
 */
import type { ByteReader, ReadPurpose, RequestTally } from '../../core/bytes/byte-reader';
import type { NetworkFigures, PurposeFigures } from '../../core/result';

export type NetworkStats = NetworkFigures;

interface PurposeCount {
  requests: number;
  bytesFetched: number;
  /** Round-trip steps (chain depths) that had a request of this purpose. */
  steps: Set<number>;
}

export class Meter {
  private readonly readers: ByteReader[] = [];
  private requests = 0;
  private bytes = 0;
  private readonly purposes = new Map<ReadPurpose, PurposeCount>();
  /** Depth of the deepest request that has fully arrived. */
  private finishedDepth = 0;
  private deepest = 0;
  /** Round trips of a restarted first attempt: this attempt's chain starts after them. */
  private carried: PurposeFigures | null = null;

  /** Counts `reader`'s requests as `purpose`, unless a read names its own (an analysis reading tensor data). */
  add<T extends ByteReader>(reader: T, purpose: ReadPurpose = 'header'): T {
    this.readers.push(reader);
    reader.observe?.((readPurpose) => this.requestStarted(readPurpose ?? purpose));
    return reader;
  }

  /** `requests` fetched one after another outside any reader (the Hub listing's pages, the commit lookup). */
  addDirect(requests: number, bytes: number, purpose: ReadPurpose = 'hub-api'): void {
    this.requests += requests;
    this.bytes += bytes;
    const count = this.count(purpose);
    count.requests += requests;
    count.bytesFetched += bytes;
    for (let i = 0; i < requests; i++) {
      const depth = this.finishedDepth + 1;
      count.steps.add(depth);
      this.finishedDepth = depth;
      this.deepest = Math.max(this.deepest, depth);
    }
  }

  /**
   * The figures of a first attempt abandoned because the file changed on the server (load-source.ts restarts once):
   * counted as one `restart` line, and this attempt's round trips follow them.
   */
  carryRestart(previous: NetworkFigures): void {
    const roundTrips = previous.roundTrips ?? 0;
    this.carried = { requests: previous.requests, bytesFetched: previous.bytesFetched, roundTrips };
    this.requests += previous.requests;
    this.bytes += previous.bytesFetched;
    this.finishedDepth += roundTrips;
    this.deepest += roundTrips;
  }

  /** Bytes read so far for `purpose`, by every reader of the load. */
  bytesFor(purpose: ReadPurpose): number {
    return this.purposes.get(purpose)?.bytesFetched ?? 0;
  }

  /** `X-Repo-Commit` of the first reader that could read one (a Hub answer), else null. */
  repoCommit(): string | null {
    for (const reader of this.readers) {
      const commit = (reader as { repoCommit?: string | null }).repoCommit;
      if (typeof commit === 'string') {
        return commit;
      }
    }
    return null;
  }

  stats(): NetworkStats {
    let requests = this.requests;
    let bytesFetched = this.bytes;
    for (const reader of this.readers) {
      const stats = reader.stats();
      requests += stats.requests;
      bytesFetched += stats.bytesFetched;
    }
    const byPurpose: NonNullable<NetworkFigures['byPurpose']> = {};
    if (this.carried !== null) {
      byPurpose.restart = { ...this.carried };
    }
    for (const [purpose, count] of this.purposes) {
      byPurpose[purpose] = {
        requests: count.requests,
        bytesFetched: count.bytesFetched,
        roundTrips: count.steps.size,
      };
    }
    return { requests, bytesFetched, roundTrips: this.deepest, byPurpose };
  }

  private requestStarted(purpose: ReadPurpose): RequestTally {
    const count = this.count(purpose);
    const depth = this.finishedDepth + 1;
    count.requests++;
    count.steps.add(depth);
    this.deepest = Math.max(this.deepest, depth);
    let ended = false;
    return {
      bytes: (received) => {
        count.bytesFetched += received;
      },
      end: () => {
        if (!ended) {
          ended = true;
          this.finishedDepth = Math.max(this.finishedDepth, depth);
        }
      },
    };
  }

  private count(purpose: ReadPurpose): PurposeCount {
    let count = this.purposes.get(purpose);
    if (!count) {
      count = { requests: 0, bytesFetched: 0, steps: new Set() };
      this.purposes.set(purpose, count);
    }
    return count;
  }
}
