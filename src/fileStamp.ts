import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';

/**
 * A file changed this long or less before a build looked at it gets no stamp: on a file system
 * whose times are whole seconds (or two, FAT's), a change right after the build could leave its
 * times as they were (git's index calls such an entry "racily clean"). Mutable only for the tests.
 */
export const stampedAfter = { ms: 2_000 };

/** What stampOf gives at build time when a file changed within stampedAfter: matches nothing. */
export const NO_STAMP = Buffer.alloc(32);

/**
 * sha256 of `context` and the files' paths, sizes, modification and change times (in
 * nanoseconds), devices and inodes, which is how git's index tells a file unchanged without reading
 * it: any write sets the change time, which no program can set back, and a file installed again is
 * another inode. A build records it beside what it derived from the files' content; a start whose
 * files still have it uses that without reading them. At build time (`now`) NO_STAMP when a file
 * changed within stampedAfter.
 */
export function stampOf(files: readonly string[], context: string, now?: number): Buffer {
  const hash = createHash('sha256').update(context);
  for (const file of files) {
    const info = statSync(file, { bigint: true });
    if (now !== undefined && Number(info.ctimeMs > info.mtimeMs ? info.ctimeMs : info.mtimeMs) > now - stampedAfter.ms) return NO_STAMP;
    hash.update(`${file}\0${info.size}\0${info.mtimeNs}\0${info.ctimeNs}\0${info.dev}\0${info.ino}\0`);
  }
  return hash.digest();
}
