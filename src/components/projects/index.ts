// Projects: what other components and the transports may use.
export { ProjectService, type ProjectRecord, type ProjectFilter, type CreateProjectValues } from "./project.service";
export * from "./project.schemas";
export { parseStatusWorkflow, type StatusWorkflow } from "./status-workflow";
