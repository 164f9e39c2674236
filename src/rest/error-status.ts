// What each error status of the REST routes means, for their documentation: the OpenAPI document (openapi.ts) uses
// it as the response description. The statuses themselves come from answers/failure.ts.
export const ERROR_STATUS_DESCRIPTIONS: Record<number, string> = {
  400: "BAD_REQUEST: malformed JSON, an unknown or non-updatable field, a wrong type, or a value the service rejects",
  401: "UNAUTHORIZED: not authenticated, or no acting role where one is needed",
  403: "FORBIDDEN: the acting role may not run this operation",
  404: "NOT_FOUND: the resource (or a resource it refers to) does not exist",
  409: "CONFLICT: the change collides with the current state",
  413: "BAD_REQUEST: the request body is larger than the server accepts",
  415: "BAD_REQUEST: the request body is not application/json",
  500: "INTERNAL_SERVER_ERROR: an unexpected failure, logged by the server",
};
