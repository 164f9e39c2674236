// The text of a JSON file the service is configured with (PROJECT_STATUS_WORKFLOW, ACCESS_POLICY,
// TRUSTED_DOCUMENTS), parsed with the one-line reason its start-up error gives.

/** JSON.parse, throwing Error("not valid JSON (<the parser's reason>)"). */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`not valid JSON (${(err as Error).message})`);
  }
}
