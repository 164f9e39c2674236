// The command line of `npm run db:conformance -- <checkout> [options]`.

export const USAGE =
  "usage: npm run db:conformance -- <checkout of mongodb/specifications> [--uri <mongodb uri> | --stock] " +
  "[--only <regex>] [--json <file>] [--verbose]";

export interface ConformanceCommandLine {
  checkout: string;
  /** Run against this server instead of starting the embedded FerretDB. */
  uri?: string;
  /** Start the embedded FerretDB with every patch switched off. */
  stock: boolean;
  /** Only the tests whose "folder/file" or "file: description" this matches. */
  only?: RegExp;
  /** Write the results, per file and test, to this file. */
  json?: string;
  /** Print each failure's details (expected and actual values). */
  verbose: boolean;
}

/** The options, or an error message (the command prints it with the usage and exits 2). */
export function parseCommandLine(args: readonly string[]): ConformanceCommandLine | string {
  const line: Partial<ConformanceCommandLine> & { stock: boolean; verbose: boolean } = { stock: false, verbose: false };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    const value = (): string | undefined => {
      const next = args[i + 1];
      if (next === undefined || next.startsWith("--")) return undefined;
      i += 1;
      return next;
    };
    switch (arg) {
      case "--uri": {
        const uri = value();
        if (!uri) return "--uri needs a MongoDB connection string";
        line.uri = uri;
        break;
      }
      case "--stock":
        line.stock = true;
        break;
      case "--only": {
        const pattern = value();
        if (!pattern) return "--only needs a regular expression";
        try {
          line.only = new RegExp(pattern);
        } catch (err) {
          return `--only: ${(err as Error).message}`;
        }
        break;
      }
      case "--json": {
        const file = value();
        if (!file) return "--json needs a file name";
        line.json = file;
        break;
      }
      case "--verbose":
        line.verbose = true;
        break;
      default:
        if (arg.startsWith("--")) return `unknown option ${arg}`;
        if (line.checkout !== undefined) return `one checkout only (got ${line.checkout} and ${arg})`;
        line.checkout = arg;
    }
  }
  if (line.checkout === undefined) return "the checkout of mongodb/specifications is missing";
  if (line.stock && line.uri) return "--stock starts the embedded FerretDB; it does not go with --uri";
  return line as ConformanceCommandLine;
}
