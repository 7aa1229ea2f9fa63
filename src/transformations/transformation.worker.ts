import {
  TransformationEngine,
  type TransformationTask,
  type TransformationTaskResult,
} from './transformation-engine';

/** This thread's engine: its QuickJS module and its runtimes, one per code key. */
const engine = new TransformationEngine();

/**
 * The sandbox's worker threads' entry point (piscina loads this file's compiled form;
 * docs/security.md#transformation-sandbox): one task at a time, run by this thread's
 * {@link TransformationEngine}. It loads the engine and the output rules only: no face, no Nest,
 * no TypeORM (`npm run lint:architecture`).
 */
export default async function runTransformationTask(
  task: TransformationTask,
): Promise<TransformationTaskResult> {
  await engine.ready();
  return engine.perform(task);
}
