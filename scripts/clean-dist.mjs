// Removes dist/ before a build, so that a file whose source was moved or deleted (or a source map
// from an older build) is never packed with the new build.
import { rmSync } from "node:fs";

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
