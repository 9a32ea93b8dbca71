import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "leash/sqlite";
import { fillStore } from "./listing-runs.js";
import { REPOSITORY_FOLDER } from "./repository-folder.js";
import { addApprover } from "./serving-process.js";

/** The built stores' code (the shared listing code and the SQLite store): a cache made by other code is not reused. */
const STORES_DIST = join(REPOSITORY_FOLDER, "dist", "stores");

/**
 * Where the built SQLite files are kept between rows and between runs of the program: a folder in
 * memory (/dev/shm) where there is one, since filling a store through the agent commits every save
 * and a disk would spend most of the build waiting for fsync; reading a listing back is the same
 * from either (the file is in the page cache). Named after a digest of the store's built code and of
 * the runs the program adds, so a changed store or a changed mix builds afresh.
 */
export function cacheFolder(): string {
  const digest = createHash("sha256");
  for (const folder of [STORES_DIST, join(STORES_DIST, "sqlite")])
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1)))
      if (entry.isFile()) digest.update(entry.name).update(readFileSync(join(folder, entry.name)));
  digest.update(readFileSync(join(REPOSITORY_FOLDER, "bench", "listing-runs.ts")));
  const root = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
  return join(root, "leash-bench-listings", digest.digest("hex").slice(0, 16));
}

/** A SQLite file holding `size` runs, from the cache when it is there, and the token of its approver. */
export async function sqliteStoreOf(size: number, folder: string): Promise<{ file: string; token: string }> {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `runs-${size}.db`);
  const tokenFile = join(folder, "approver-token");
  if (existsSync(file) && existsSync(tokenFile)) return { file, token: readFileSync(tokenFile, "utf8") };
  // Grow the largest smaller file already built, so a row never builds what the one before it did.
  const smaller = readdirSync(folder)
    .map((name) => /^runs-(\d+)\.db$/.exec(name))
    .filter((match) => match !== null)
    .map((match) => Number(match[1]))
    .filter((built) => built < size && existsSync(tokenFile))
    .sort((a, b) => b - a)[0];
  const building = `${file}.building`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(building + suffix, { force: true });
  if (smaller !== undefined) copyFileSync(join(folder, `runs-${smaller}.db`), building);
  // A file built from nothing gets an approver of its own: files of an older approver must go.
  else for (const name of readdirSync(folder)) if (/^runs-\d+\.db$/.test(name)) rmSync(join(folder, name));
  const store = new SqliteStore(building);
  try {
    await fillStore(store, smaller ?? 0, size, `SQLite, ${size.toLocaleString("en")} runs`);
  } finally {
    // Closing checkpoints the write-ahead log into the file, so the file alone is the whole store.
    await store.close();
  }
  // The token signs in to the file's inbox: readable by its owner only.
  if (smaller === undefined) writeFileSync(tokenFile, addApprover(["--db", building], "bench"), { mode: 0o600 });
  renameSync(building, file);
  return { file, token: readFileSync(tokenFile, "utf8") };
}
