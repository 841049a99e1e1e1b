import type { ChildProcess } from 'node:child_process';

/** Sends the signal and resolves once the process is gone. */
export function endProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
