/**
 * The read bench's client in a process of its own (`--read`, see read.ts): asked over IPC for `n` rounds of one
 * request of a path and one of `/live` on a server's port, it answers each request's time in ms. A user's client
 * (a browser, curl, a monitor) is always another process: in the bench's own process, `/live` never left one thread,
 * while every page waits for another one to wake (the database's), so the ratio of the two was not what a user sees.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { HttpClient, nowMs } from './timing';

export interface RoundsAsk { readonly id: number; readonly port: number; readonly path: string; readonly n: number }
export type RoundsAnswer = { readonly id: number; readonly page: number[]; readonly live: number[] } | { readonly id: number; readonly error: string };

const clients = new Map<number, HttpClient>();

async function rounds(ask: RoundsAsk): Promise<RoundsAnswer> {
  let http = clients.get(ask.port);
  if (!http) clients.set(ask.port, (http = new HttpClient(ask.port)));
  const page: number[] = [];
  const live: number[] = [];
  for (let k = 0; k < ask.n; k++) {
    let t = nowMs();
    await http.getOk(ask.path);
    page.push(nowMs() - t);
    t = nowMs();
    await http.getOk('/live');
    live.push(nowMs() - t);
  }
  return { id: ask.id, page, live };
}

if (require.main === module) {
  process.on('message', (ask: RoundsAsk) => {
    void rounds(ask).then(
      (answer) => process.send!(answer),
      (err: unknown) => process.send!({ id: ask.id, error: err instanceof Error ? err.message : String(err) }),
    );
  });
  process.on('disconnect', () => {
    for (const http of clients.values()) http.close();
    process.exit(0);
  });
}

/** The parent's handle on the client process: `rounds` as read.ts's in-process client takes them. */
export class ClientProcess {
  private readonly child: ChildProcess;
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (a: { page: number[]; live: number[] }) => void; reject: (e: Error) => void }>();

  constructor(repo: string) {
    this.child = fork(join(repo, 'dist', 'bench', 'paired-client.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    this.child.on('message', (answer: RoundsAnswer) => {
      const w = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if ('error' in answer) w?.reject(new Error(`the client process: ${answer.error}`));
      else w?.resolve(answer);
    });
    this.child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`the client process exited with ${code}`));
      this.waiting.clear();
    });
  }

  rounds(port: number, path: string, n: number): Promise<{ page: number[]; live: number[] }> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ id, port, path, n } satisfies RoundsAsk);
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = once(this.child, 'exit');
    this.child.disconnect();
    await exited;
  }
}
