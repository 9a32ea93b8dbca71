// The tamper test of saved states and step rows, on PostgreSQL (where DATABASE_URL is set).
import { stateTamperTest } from "./state-tamper-suite.js";

stateTamperTest("postgres");
