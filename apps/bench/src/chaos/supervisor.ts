/** A running API or daemon process, as the supervisor sees it. */
export interface Running {
  stop(): Promise<void>;
  kill(): Promise<void>;
  exited: Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Between two starts that failed, and before restarting a process that exited by itself. */
const RESTART_BACKOFF_MS = 1_000;
/** A process still running this long after SIGTERM is killed (and counted). */
const STOP_GRACE_MS = 45_000;

/**
 * Keeps one API or daemon process running, as systemd's `Restart=always` would: a process
 * that fails to start (the database is restarting, say) or exits by itself is started
 * again; `kill9` kills it and starts it again after a while. Exits nobody asked for are
 * counted: under chaos a process should not die of its own accord.
 */
export class Supervised {
  private current?: Running;
  /** The start in progress: a kill or a second start waits for it rather than racing it for the port. */
  private starting?: Promise<void>;
  private stopping = false;
  /** When processes exited without being asked to (epoch ms). */
  readonly unexpectedExits: number[] = [];
  failedStarts = 0;
  /** Whether the last process had to be killed because SIGTERM did not stop it. */
  stopTimedOut = false;

  constructor(
    readonly name: string,
    private readonly start: () => Promise<Running>,
    private readonly log: (line: string) => void,
  ) {}

  /** Resolves once a process is up (retrying failed starts); nothing more if one is up or starting. */
  up(): Promise<void> {
    if (this.current) return Promise.resolve();
    this.starting ??= this.startUntilUp().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async startUntilUp(): Promise<void> {
    while (!this.stopping) {
      try {
        const running = await this.start();
        this.current = running;
        void running.exited.then(() => this.onExit(running));
        return;
      } catch (error) {
        this.failedStarts++;
        this.log(`${this.name} did not start (${(error as Error).message}); trying again`);
        await sleep(RESTART_BACKOFF_MS);
      }
    }
  }

  /** SIGKILL now (after a start in progress, if any); a new process `restartAfterMs` later (not awaited). */
  async kill9(restartAfterMs: number): Promise<void> {
    await this.starting;
    const running = this.current;
    this.current = undefined;
    await running?.kill();
    void sleep(restartAfterMs).then(() => this.up());
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.starting;
    const running = this.current;
    if (!running) return;
    const stopped = await Promise.race([running.stop().then(() => true), sleep(STOP_GRACE_MS).then(() => false)]);
    if (!stopped) {
      this.stopTimedOut = true;
      this.log(`${this.name} still running ${STOP_GRACE_MS / 1000}s after SIGTERM; killed`);
      await running.kill();
    }
  }

  private onExit(running: Running): void {
    if (this.stopping || this.current !== running) return;
    this.unexpectedExits.push(Date.now());
    this.current = undefined;
    this.log(`${this.name} exited by itself; restarting`);
    void sleep(RESTART_BACKOFF_MS).then(() => this.up());
  }
}
