// The tamper test of saved states and step rows, on a SQLite file.
import { stateTamperTest } from "./state-tamper-suite.js";

stateTamperTest("sqlite");
