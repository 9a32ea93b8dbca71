import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The repository's root folder, where the built package (`dist/`) and the benchmarks' sources are,
 * also when this module runs from a compiled copy: that copy links the repository's package.json, so
 * the folder of its real path is the repository itself.
 */
export const REPOSITORY_FOLDER = dirname(realpathSync(fileURLToPath(new URL("../package.json", import.meta.url))));
