/** Why a Countersign helper refused to run in a DBOS workflow: a programming error, not a refusal of a call. */
export type CountersignDbosErrorCode =
  /** A helper was called outside a DBOS workflow function (a step cannot be recorded there). */
  | 'not_in_workflow'
  /** The response names a run other than the workflow: run id = workflow id, so notifications and run keys find it. */
  | 'run_id_mismatch';

export class CountersignDbosError extends Error {
  override readonly name = 'CountersignDbosError';
  readonly code: CountersignDbosErrorCode;
  constructor(code: CountersignDbosErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
