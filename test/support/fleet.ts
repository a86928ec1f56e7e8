/**
 * Test support: several chainflow processes on one database (CONTRACT 10): `chainflow start` servers on fixed ports
 * and `chainflow worker`s, each of which a test may kill -9 and start again, or freeze (SIGSTOP) and thaw (SIGCONT).
 * The fleet signals only the processes it started, by their pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './cli';
import { eventually, freePort, startProcessServer, type ProcessServer } from './process';

export type MemberKind = 'start' | 'worker';

interface Member {
  readonly name: string;
  readonly kind: MemberKind;
  /** Servers keep their port across restarts, so a client's list of addresses stays valid. */
  readonly port: number;
  server?: ProcessServer;
  worker?: { child: ChildProcess; exited: Promise<void> };
  frozen: boolean;
  /** Everything its earlier lives wrote (stdout and stderr), for a failure's message. */
  log: string;
}

/** A moment a process stopped driving: killed, or frozen (its leases run out while it sleeps). */
export interface Fault {
  readonly at: number;
  readonly member: string;
  readonly kind: 'kill' | 'freeze';
}

export class Fleet {
  private readonly members = new Map<string, Member>();
  /** Every kill -9 and freeze, in order (epoch ms), for telling an at-least-once repeat from a bug. */
  readonly faults: Fault[] = [];

  constructor(private readonly cwd: string, private readonly env: Record<string, string>) {}

  async add(name: string, kind: MemberKind): Promise<void> {
    const member: Member = { name, kind, port: kind === 'start' ? await freePort() : 0, frozen: false, log: '' };
    this.members.set(name, member);
    await this.launch(member);
  }

  names(): string[] {
    return [...this.members.keys()];
  }

  /** Members that are running and not frozen. */
  awake(): string[] {
    return [...this.members.values()].filter((m) => this.alive(m) && !m.frozen).map((m) => m.name);
  }

  /** Base URLs of every server, up or not (a client tries another when one does not answer). */
  serverUrls(): string[] {
    return [...this.members.values()].filter((m) => m.kind === 'start').map((m) => `http://127.0.0.1:${m.port}`);
  }

  /** The pid of a member's current process (engine lease owners are `<host>:<pid>:<random>`). */
  pid(name: string): number | undefined {
    return this.childOf(this.member(name)).pid;
  }

  /** kill -9 (a frozen process is thawed by its death), then waits for its end. */
  async kill(name: string): Promise<void> {
    const m = this.member(name);
    this.faults.push({ at: Date.now(), member: name, kind: 'kill' });
    if (m.server) await m.server.kill('SIGKILL');
    if (m.worker) {
      m.worker.child.kill('SIGKILL');
      await m.worker.exited;
    }
    m.frozen = false;
  }

  async restart(name: string): Promise<void> {
    await this.launch(this.member(name));
  }

  freeze(name: string): void {
    const m = this.member(name);
    this.faults.push({ at: Date.now(), member: name, kind: 'freeze' });
    this.childOf(m).kill('SIGSTOP');
    m.frozen = true;
  }

  thaw(name: string): void {
    const m = this.member(name);
    this.childOf(m).kill('SIGCONT');
    m.frozen = false;
  }

  /** Thaws and kills every process of the fleet (each by its own pid). */
  async stopAll(): Promise<void> {
    for (const m of this.members.values()) {
      if (!this.alive(m)) continue;
      this.childOf(m).kill('SIGCONT');
      if (m.server) await m.server.kill('SIGKILL');
      if (m.worker) {
        m.worker.child.kill('SIGKILL');
        await m.worker.exited;
      }
    }
  }

  /** A member's output so far, its earlier lives included. */
  log(name: string): string {
    const m = this.member(name);
    return m.log + (m.server ? m.server.log() + m.server.stderr() : '');
  }

  /** Every process's output so far (earlier lives included), for a failure's message. */
  logs(): string {
    return this.names().map((name) => `--- ${name}\n${this.log(name)}`).join('\n');
  }

  private member(name: string): Member {
    const m = this.members.get(name);
    if (!m) throw new Error(`no fleet member ${name}`);
    return m;
  }

  private alive(m: Member): boolean {
    const child = m.server?.child ?? m.worker?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  private childOf(m: Member): ChildProcess {
    const child = m.server?.child ?? m.worker?.child;
    if (!child) throw new Error(`${m.name} was never started`);
    return child;
  }

  private async launch(m: Member): Promise<void> {
    if (m.server) m.log += m.server.log() + m.server.stderr();
    if (m.kind === 'start') {
      m.server = await startProcessServer(this.cwd, this.env, [], m.port);
      return;
    }
    const childEnv: NodeJS.ProcessEnv = { ...process.env, ...this.env, NO_COLOR: '1', CHAINFLOW_LOG_LEVEL: 'info' };
    delete childEnv.CHAINFLOW_CONFIG;
    const child = spawn(process.execPath, [BIN, 'worker'], { cwd: this.cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => void (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => void (out += d.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => {
      m.log += out;
      resolve();
    }));
    m.worker = { child, exited };
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`chainflow worker exited ${child.exitCode}: ${out}`);
      return out.includes('chainflow worker running') ? true : undefined;
    }, 20_000, 'chainflow worker to run');
  }
}
