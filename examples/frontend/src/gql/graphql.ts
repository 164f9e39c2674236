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

export type CreateProjectMutationVariables = Exact<{
  input: CreateProjectInput;
}>;


export type CreateProjectMutation = { createProject: { success: boolean, message: string | null, code: ErrorCode | null, errors: Array<{ field: string | null, message: string, code: ErrorCode }>, data: { project_id: number, project_name: string, revision: number } | null } };

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