/**
 * Runs the tasks given for one key one after another, in the order given, and tasks of different keys
 * side by side: the inbox answers one run's requests one at a time, so that two answers from the same
 * approver posted at once are judged one after the other, each against the answers recorded before it.
 */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  /** Runs `task` once every task given earlier for `key` has settled; resolves or rejects as it does. */
  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.#tails.set(key, tail);
    // The map holds a key only while a task for it is queued or running.
    void tail.then(() => {
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    });
    return result;
  }
}
