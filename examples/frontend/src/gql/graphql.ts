/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** A new project */
export type CreateProjectInput = {
  /** a whole number from 1 to 2147483647 */
  company_id: number;
  /** a real calendar date written YYYY-MM-DD, not before start_date */
  end_date: string;
  /** trimmed, 1–5000 characters; may span lines (newline and tab allowed) */
  project_desc: string;
  /** trimmed, 1–200 characters; unique per company_id, ignoring case */
  project_name: string;
  /** trimmed, 1–64 characters; PROJECT_STATUS_WORKFLOW may restrict it */
  project_status: string;
  /** an absolute http or https URL of at most 2048 characters */
  project_url?: string | null | undefined;
  /** a real calendar date written YYYY-MM-DD */
  start_date: string;
};

/** Why an operation failed */
export type ErrorCode =
  /** The request or a value in it is invalid (HTTP 400) */
  | 'BAD_REQUEST'
  /** The change collides with the current state (HTTP 409) */
  | 'CONFLICT'
  /** The acting role may not run the operation (HTTP 403) */
  | 'FORBIDDEN'
  /** An unexpected failure, logged by the service (HTTP 500) */
  | 'INTERNAL_SERVER_ERROR'
  /** The resource, or one it refers to, does not exist (HTTP 404) */
  | 'NOT_FOUND'
  /** The service sheds load: a change did not get its turn at the database in time; retry after Retry-After seconds (HTTP 503) */
  | 'SERVICE_UNAVAILABLE'
  /** Over RATE_LIMIT_PER_MINUTE; retry after Retry-After seconds (HTTP 429) */
  | 'TOO_MANY_REQUESTS'
  /** Not authenticated, or no acting role where one is needed (HTTP 401) */
  | 'UNAUTHORIZED';

/** Why a field (or the request) was refused, for code: translate by it, not by message, which is English for people */
export type FieldErrorReason =
  /** The teacher is already the project's teacher */
  | 'ALREADY_ASSIGNED'
  /** The project is archived: it cannot be changed (nor archived again) until it is unarchived */
  | 'ARCHIVED'
  /** A text is empty once trimmed, or contains only invisible characters */
  | 'BLANK'
  /** The resource kept changing concurrently; send the request again */
  | 'CONCURRENT_CHANGE'
  /** A text contains control characters, unpaired surrogates, bidirectional overrides, or (in identifiers such as class_code and email) invisible characters */
  | 'FORBIDDEN_CHARACTERS'
  /** An unexpected failure of the service, logged with its detail; the request may be retried */
  | 'INTERNAL'
  /** A cursor is not one this service gave out, or has expired */
  | 'INVALID_CURSOR'
  /** A date is not a real calendar date written YYYY-MM-DD */
  | 'INVALID_DATE'
  /** A value is not written the way its field needs (an e-mail address, an http(s) URL, a whole number in a path) */
  | 'INVALID_FORMAT'
  /** The resource cannot be deleted while others refer to it (a teacher assigned to projects, archived ones included) */
  | 'IN_USE'
  /** A limit of one connection was reached (SUBSCRIPTIONS_PER_CONNECTION) */
  | 'LIMIT_EXCEEDED'
  /** The request itself is malformed: JSON that does not parse, an empty JSON body, broken HTTP framing, a bad URL, a malformed documentId, a persisted query whose sha256Hash does not match its query */
  | 'MALFORMED_REQUEST'
  /** The caller is not authenticated, or its role (X-User-Role, the token's roles) may not run the operation */
  | 'NOT_ALLOWED'
  /** The project is not archived, so it cannot be unarchived */
  | 'NOT_ARCHIVED'
  /** The resource the field or argument names does not exist */
  | 'NOT_FOUND'
  /** The operation is not served this way (a subscription over HTTP, a query over WebSocket, a method the route does not take) */
  | 'NOT_SUPPORTED'
  /** The document is not a trusted one (TRUSTED_DOCUMENTS): an unknown documentId or hash, or, with TRUSTED_DOCUMENTS_ONLY, a document sent as text */
  | 'NOT_TRUSTED'
  /** A number is outside its range (ids, company_id, expected_revision, offset, limit, after_revision), end_date is before start_date, or a where's in/notIn (1-100 values) or and/or (1-10 entries) holds too few or too many */
  | 'OUT_OF_RANGE'
  /** More changes arrived than the database takes within DB_TIMEOUT_MS: this one did not get its turn; retry after Retry-After seconds */
  | 'OVERLOADED'
  /** The caller sent more requests than RATE_LIMIT_PER_MINUTE allows; retry after Retry-After seconds */
  | 'RATE_LIMITED'
  /** A required field or argument is missing or null */
  | 'REQUIRED'
  /** expected_revision is not the project's current revision: reload it and decide again */
  | 'STALE_REVISION'
  /** The value is already used where it must be unique (project_name per company_id, a student's email) */
  | 'TAKEN'
  /** The request was not received in time */
  | 'TIMEOUT'
  /** The GraphQL document costs more, or is larger, than the service runs, or a where nests and/or/not deeper than 4 */
  | 'TOO_COMPLEX'
  /** The request body, its headers or a path parameter is larger than the service accepts */
  | 'TOO_LARGE'
  /** A text has more characters than its field allows */
  | 'TOO_LONG'
  /** PROJECT_STATUS_WORKFLOW does not allow this status change (or does not allow a new project to start with it) */
  | 'TRANSITION_NOT_ALLOWED'
  /** The service cannot answer now (shutting down, database not answering, connections full); retry */
  | 'UNAVAILABLE'
  /** A field is not accepted by this operation (unknown, or not updatable such as email) */
  | 'UNKNOWN_FIELD'
  /** project_status is not one of the statuses PROJECT_STATUS_WORKFLOW lists */
  | 'UNKNOWN_STATUS'
  /** The request body is not application/json */
  | 'UNSUPPORTED_MEDIA_TYPE'
  /** A value has the wrong JSON type (a string where a number belongs, an array instead of an object) */
  | 'WRONG_TYPE';

/** Every field given narrows the list */
export type ProjectFilterInput = {
  /** a whole number from 1 to 2147483647 */
  company_id?: number | null | undefined;
  /** trimmed, 1–64 characters; PROJECT_STATUS_WORKFLOW may restrict it */
  project_status?: string | null | undefined;
  /** a whole number from 1 to 2147483647 */
  teacher_id?: number | null | undefined;
};

/** The operation that made a change of a project */
export type ProjectOperation =
  /** The project was archived: out of lists, counts and live matches, and read-only until unarchived */
  | 'archiveProject'
  /** A teacher was assigned to the project */
  | 'assignTeacher'
  /** The project was created (revision 1) */
  | 'createProject'
  /** The project was deleted: its last entry, holding the project as it was */
  | 'deleteProject'
  /** The project was unarchived */
  | 'unarchiveProject'
  /** The project's status was changed */
  | 'updateProjectStatus';

export type CreateProjectMutationVariables = Exact<{
  input: CreateProjectInput;
}>;


export type CreateProjectMutation = { createProject: { success: boolean, message: string | null, code: ErrorCode | null, errors: Array<{ field: string | null, message: string, code: ErrorCode, reason: FieldErrorReason }>, data: { project_id: number, project_name: string, revision: number } | null } };

export type ProjectListQueryVariables = Exact<{
  first: number;
  after?: string | null | undefined;
  filter?: ProjectFilterInput | null | undefined;
}>;


export type ProjectListQuery = { projectsConnection: { edges: Array<{ cursor: string, node: { id: string, project_id: number, project_name: string, project_status: string, teacher: { id: string, teacher_name: string } | null } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type WatchProjectsSubscriptionVariables = Exact<{
  filter?: ProjectFilterInput | null | undefined;
  after?: string | null | undefined;
}>;


export type WatchProjectsSubscription = { projectChanges: { cursor: string, project_id: number, change: { revision: number, operation: ProjectOperation, actor_id: string | null, at: string, changes: Array<{ field: string, from: string | null, to: string | null }> }, project: { project_id: number, project_name: string, project_status: string, teacher_id: number | null, revision: number } } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const CreateProjectDocument = new TypedDocumentString(`
    mutation CreateProject($input: CreateProjectInput!) {
  createProject(input: $input) {
    success
    message
    code
    errors {
      field
      message
      code
      reason
    }
    data {
      project_id
      project_name
      revision
    }
  }
}
    `, {"hash":"sha256:467776e337c69afa15cfbd9874493df1c64e4718d988ba7bc5eb26db6452561d"}) as unknown as TypedDocumentString<CreateProjectMutation, CreateProjectMutationVariables>;
export const ProjectListDocument = new TypedDocumentString(`
    query ProjectList($first: Int!, $after: String, $filter: ProjectFilterInput) {
  projectsConnection(first: $first, after: $after, filter: $filter) {
    edges {
      cursor
      node {
        id
        project_id
        project_name
        project_status
        teacher {
          id
          teacher_name
        }
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `, {"hash":"sha256:34ba7b76fcea4f13b4a1ca2089467e9354935b44ae74bbf253f0fdbcf2f64e62"}) as unknown as TypedDocumentString<ProjectListQuery, ProjectListQueryVariables>;
export const WatchProjectsDocument = new TypedDocumentString(`
    subscription WatchProjects($filter: ProjectFilterInput, $after: String) {
  projectChanges(filter: $filter, after: $after) {
    cursor
    project_id
    change {
      revision
      operation
      actor_id
      at
      changes {
        field
        from
        to
      }
    }
    project {
      project_id
      project_name
      project_status
      teacher_id
      revision
    }
  }
}
    `, {"hash":"sha256:01dc742cadbdb9eb3bc60c3b8eb254631eb44e24af2ad967dd60c5c9c1c0313c"}) as unknown as TypedDocumentString<WatchProjectsSubscription, WatchProjectsSubscriptionVariables>;