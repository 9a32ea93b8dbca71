// The repository's root folder, for a test file run from the repository and for its compiled twin in
// the test run's compiled folder alike: that folder links the repository's package.json, so the
// folder of package.json's real path is always the repository itself (where npm, git and the built
// package are), never the compiled copy.
import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root, with a trailing separator as `new URL("../../", import.meta.url)` gives it. */
export const repositoryRoot = `${dirname(realpathSync(fileURLToPath(new URL("../../package.json", import.meta.url))))}/`;
