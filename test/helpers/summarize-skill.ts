/**
 * A skill whose check refuses a summary of more than 100 words, tried twice: an agent whose answer is
 * `{ words: 1000 }` gives up on it after two attempts.
 */
export const summarize = {
  name: "Summarize",
  brief: (page: string) => `Summarize ${page}.`,
  check: (summary: { words: number }) => (summary.words > 100 ? "A summary is short." : null),
  retry: { attempts: 2 },
};
