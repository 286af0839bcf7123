/** A pipeline phase failed (post decision not applicable, finalizer threw): the call ends `PIPELINE_ERROR`. */
export class ToolPipelineError extends Error {
  override readonly name = 'ToolPipelineError';
  readonly code = 'PIPELINE_ERROR' as const;
}
