/* eslint-disable */
import * as types from './graphql';



/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  mutation CreateProject($input: CreateProjectInput!) {\n    createProject(input: $input) {\n      success\n      message\n      code\n      errors {\n        field\n        message\n        code\n        reason\n      }\n      data {\n        project_id\n        project_name\n        revision\n      }\n    }\n  }\n": typeof types.CreateProjectDocument,
    "\n  query ProjectList($first: Int!, $after: String, $filter: ProjectFilterInput) {\n    projectsConnection(first: $first, after: $after, filter: $filter) {\n      edges {\n        cursor\n        node {\n          id\n          project_id\n          project_name\n          project_status\n          teacher {\n            id\n            teacher_name\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.ProjectListDocument,
    "\n  subscription WatchProjects($filter: ProjectFilterInput, $after: String) {\n    projectChanges(filter: $filter, after: $after) {\n      cursor\n      project_id\n      change {\n        revision\n        operation\n        actor_id\n        at\n        changes {\n          field\n          from\n          to\n        }\n      }\n      project {\n        project_id\n        project_name\n        project_status\n        teacher_id\n        revision\n      }\n    }\n  }\n": typeof types.WatchProjectsDocument,
};
const documents: Documents = {
    "\n  mutation CreateProject($input: CreateProjectInput!) {\n    createProject(input: $input) {\n      success\n      message\n      code\n      errors {\n        field\n        message\n        code\n        reason\n      }\n      data {\n        project_id\n        project_name\n        revision\n      }\n    }\n  }\n": types.CreateProjectDocument,
    "\n  query ProjectList($first: Int!, $after: String, $filter: ProjectFilterInput) {\n    projectsConnection(first: $first, after: $after, filter: $filter) {\n      edges {\n        cursor\n        node {\n          id\n          project_id\n          project_name\n          project_status\n          teacher {\n            id\n            teacher_name\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.ProjectListDocument,
    "\n  subscription WatchProjects($filter: ProjectFilterInput, $after: String) {\n    projectChanges(filter: $filter, after: $after) {\n      cursor\n      project_id\n      change {\n        revision\n        operation\n        actor_id\n        at\n        changes {\n          field\n          from\n          to\n        }\n      }\n      project {\n        project_id\n        project_name\n        project_status\n        teacher_id\n        revision\n      }\n    }\n  }\n": types.WatchProjectsDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateProject($input: CreateProjectInput!) {\n    createProject(input: $input) {\n      success\n      message\n      code\n      errors {\n        field\n        message\n        code\n        reason\n      }\n      data {\n        project_id\n        project_name\n        revision\n      }\n    }\n  }\n"): typeof import('./graphql').CreateProjectDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ProjectList($first: Int!, $after: String, $filter: ProjectFilterInput) {\n    projectsConnection(first: $first, after: $after, filter: $filter) {\n      edges {\n        cursor\n        node {\n          id\n          project_id\n          project_name\n          project_status\n          teacher {\n            id\n            teacher_name\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): typeof import('./graphql').ProjectListDocument;
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription WatchProjects($filter: ProjectFilterInput, $after: String) {\n    projectChanges(filter: $filter, after: $after) {\n      cursor\n      project_id\n      change {\n        revision\n        operation\n        actor_id\n        at\n        changes {\n          field\n          from\n          to\n        }\n      }\n      project {\n        project_id\n        project_name\n        project_status\n        teacher_id\n        revision\n      }\n    }\n  }\n"): typeof import('./graphql').WatchProjectsDocument;


export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}
