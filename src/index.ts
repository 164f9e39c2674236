// The entry point of `npm start` and of the container image: starts the service (main.ts) from its bundle, one file
// with V8's code cache, when the bundle matches the compiled code; otherwise from dist/ module by module. Either
// way with Node's compile cache on (Node >= 22) for what `require` loads, and the same compiled code runs
// (start-bundle.ts says when and why).
import path from "node:path";
import { startFromBundle } from "./start-bundle";

if (!startFromBundle(path.join(__dirname, "main.bundle.js"))) void import("./main");
