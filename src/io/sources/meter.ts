/** Requests and bytes of every reader a load used, plus direct fetches (the Hub listing). */
import type { ByteReader } from '../../core/bytes/byte-reader';

export interface NetworkStats {
  requests: number;
  bytesFetched: number;
}

export class Meter {
  private readonly readers: ByteReader[] = [];
  private requests = 0;
  private bytes = 0;

  add<T extends ByteReader>(reader: T): T {
    this.readers.push(reader);
    return reader;
  }

  addDirect(requests: number, bytes: number): void {
    this.requests += requests;
    this.bytes += bytes;
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
    return { requests, bytesFetched };
  }
}
