/**
 * The HTTP API's request and response bodies as zod schemas, shared by the server
 * (which validates requests strictly) and `@countersign/client` (which parses every
 * answer before trusting it).
 */
export { AuthorizeOutcomeSchema, CallStatusSchema, CompleteOutcomeSchema, ErrorResponse, ProposalsResponse, RegisterToolsResponse, RelayCheckOutcomeSchema, RequestStatusResponse, TokenResponse, ToolAdmissionSchema } from './outcomes.ts';
export { AuthorizeBody, CompleteBody, DispatchBody, Id, ProposalsBody, RecordedCallBody, RelayedBody, ToolAdmissionBody, ToolsBody } from './requests.ts';
export { ProviderOutputBody, ProviderOutputRecorded, RefusalReportBody, RefusalReportRecorded } from './refusal-report.ts';
export { isUtf8JsonContentType } from './json-content-type.ts';
