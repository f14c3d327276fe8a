// The approval service: one operation per file in ./approvals/, the class a thin facade.
export { ApprovalService } from './approval-service.ts';
export type {
  DecisionFailure,
  DecideOptions,
  DecisionInput,
  DecisionOutcome,
  DefinitionReviewView,
  DefinitionView,
  EditedCall,
  ListResult,
  ReadFailure,
  RequestView,
  RevokeOutcome,
  ViewResult,
} from './types.ts';
