import { SingleBar } from 'cli-progress';

/** A stream a bar may draw on: a terminal (`isTTY`), or anything else (then nothing is drawn). */
export type ProgressStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface ProgressOptions {
  /** `--json`: the output is for a program; nothing is drawn. */
  readonly json?: boolean;
  /** The command writes its data to stdout while it works (an export without `--out`): never draw there. */
  readonly stdoutBusy?: boolean;
  /** Where to draw: default stderr when it is a terminal, else stdout when it is one and not busy. */
  readonly streams?: { readonly stderr: ProgressStream; readonly stdout: ProgressStream };
}

/**
 * Progress of long work (import, export, archive, retention) on a terminal, through cli-progress: a bar with
 * percentage and ETA when the total is known, a running count when it is not. Silent when neither stdout nor stderr
 * is a terminal, and under `--json`, so that scripts and logs never see it. `update` is cheap to call often: the bar
 * redraws at most 10 times a second.
 */
export class Progress {
  private bar: SingleBar | undefined;
  private phase = '';

  private constructor(private readonly stream: ProgressStream) {}

  /** A progress display, or undefined when nothing may be drawn. */
  static open(options: ProgressOptions = {}): Progress | undefined {
    if (options.json) return undefined;
    const { stderr, stdout } = options.streams ?? { stderr: process.stderr, stdout: process.stdout };
    if (stderr.isTTY) return new Progress(stderr);
    if (stdout.isTTY && !options.stdoutBusy) return new Progress(stdout);
    return undefined;
  }

  /**
   * `phase`: what is being done (`validating`, `importing`); `unit`: what is counted (`lines`, `runs`); `total`:
   * how many there are, when known. A new phase replaces the bar of the last one.
   */
  update(phase: string, value: number, unit: string, total?: number): void {
    if (phase !== this.phase) {
      this.bar?.stop();
      this.phase = phase;
      this.bar = new SingleBar({
        stream: this.stream,
        format: (options, params, payload: { unit: string }) => render(phase, params, payload.unit, options.barsize ?? 30),
        barsize: 30,
        hideCursor: true,
        clearOnComplete: true,
        fps: 10,
        etaBuffer: 50,
        noTTYOutput: false,
      });
      this.bar.start(total ?? 0, value, { unit });
      return;
    }
    if (total !== undefined && this.bar?.getTotal() !== total) this.bar?.setTotal(total);
    this.bar?.update(value, { unit });
  }

  /** Removes the bar (the command then prints its summary line). */
  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }

  /** Runs `work` with the progress display (or none), and always removes the bar, also when the work fails. */
  static async around<T>(progress: Progress | undefined, work: (progress: Progress | undefined) => Promise<T>): Promise<T> {
    try {
      return await work(progress);
    } finally {
      progress?.stop();
    }
  }
}

type Params = { value: number; total: number; progress: number; eta: number };

function render(phase: string, p: Params, unit: string, width: number): string {
  const count = `${p.value.toLocaleString('en-US')}${p.total > 0 ? ` / ${p.total.toLocaleString('en-US')}` : ''} ${unit}`;
  if (p.total <= 0) return `${phase}: ${count}`;
  const done = Math.round(Math.min(1, Math.max(0, p.progress)) * width);
  const eta = Number.isFinite(p.eta) && p.eta > 0 ? `, ${p.eta} s left` : '';
  return `${phase} [${'#'.repeat(done)}${'.'.repeat(width - done)}] ${Math.floor(p.progress * 100)}% ${count}${eta}`;
}
