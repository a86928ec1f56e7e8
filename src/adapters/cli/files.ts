import { createWriteStream, openSync, statSync, type WriteStream } from 'node:fs';

/**
 * The file a command writes (`--out`), opened before any work so that a bad path fails at once, in one line
 * naming the file (the fs error carries its path; the command's error mapping words it).
 */
export function openOutput(path: string): WriteStream {
  const fd = openSync(path, 'w');
  return createWriteStream(path, { fd });
}

/** The file a command reads: refused at once when it is missing or not a file (one line naming it). */
export function checkInput(path: string): void {
  const stat = statSync(path);
  if (stat.isDirectory()) throw Object.assign(new Error(`${path}: is a directory`), { code: 'EISDIR', path });
}
