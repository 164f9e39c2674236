/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
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
  | 'BAD_REQUEST'
  | 'CONFLICT'
  | 'FORBIDDEN'
  | 'INTERNAL_SERVER_ERROR'
  | 'NOT_FOUND'
  | 'TOO_MANY_REQUESTS'
  | 'UNAUTHORIZED';

/** Every field given narrows the list */
export type ProjectFilterInput = {
  /** a whole number from 1 to 2147483647 */
  company_id?: number | null | undefined;
  /** trimmed, 1–64 characters; PROJECT_STATUS_WORKFLOW may restrict it */
  project_status?: string | null | undefined;
  /** a whole number from 1 to 2147483647 */
  teacher_id?: number | null | undefined;
};

export type CreateProjectMutationVariables = Exact<{
  input: CreateProjectInput;
}>;


export type CreateProjectMutation = { createProject: { success: boolean, message: string | null, code: ErrorCode | null, errors: Array<{ field: string | null, message: string, code: ErrorCode }>, data: { project_id: number, project_name: string, revision: number } | null } };

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


export type WatchProjectsSubscription = { projectChanges: { cursor: string, project_id: number, change: { revision: number, operation: string, actor_id: string | null, at: string, changes: Array<{ field: string, from: string | null, to: string | null }> }, project: { project_id: number, project_name: string, project_status: string, teacher_id: number | null, revision: number } } };

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
    }
    data {
      project_id
      project_name
      revision
    }
  }
}
    `) as unknown as TypedDocumentString<CreateProjectMutation, CreateProjectMutationVariables>;
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
    `) as unknown as TypedDocumentString<ProjectListQuery, ProjectListQueryVariables>;
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
    `) as unknown as TypedDocumentString<WatchProjectsSubscription, WatchProjectsSubscriptionVariables>;