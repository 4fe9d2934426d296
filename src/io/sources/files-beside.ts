/** Opening the files a model's own bytes name beside it, without letting those bytes choose another place. */
import type { ByteReader } from '../../core/bytes/byte-reader';

/** A bare file name: no slash, backslash or colon, and no leading dot, so it stays in the model's folder and host. */
const BARE_NAME = /^\w[\w.-]*$/;

/**
 * Files beside the model by a bare name its own bytes gave (a DCP chunk's `relative_path`), each opened once: a name
 * with a slash, a colon or a leading dot is never opened, so a hostile `.metadata` cannot reach another folder or
 * another host.
 */
export function filesBeside(open: (name: string) => ByteReader | null): (name: string) => ByteReader | null {
  const opened = new Map<string, ByteReader | null>();
  return (name) => {
    if (!BARE_NAME.test(name)) {
      return null;
    }
    if (!opened.has(name)) {
      opened.set(name, open(name));
    }
    return opened.get(name) ?? null;
  };
}
