import { z } from "zod";
import { ContentTaskResult, QuizVideoParams, ShortsParams, SlideParams } from "./content-params.ts";
import { FlashcardsParams } from "./flashcards-params.ts";
import { MindMapParams } from "./mindmap-params.ts";
import {
  NoteTranslationCompletion,
  NoteTranslationParams,
  NoteTranslationResult,
} from "./note-translation-params.ts";
import { PodcastParams } from "./podcast-params.ts";
import { QuizParams, QuizResult } from "./quiz-params.ts";
import { StudyGuideParams, StudyGuideResult } from "./study-guide-params.ts";
import { TaskFailureCode } from "./task-failure.ts";
import { TranscribeParams } from "./transcribe-params.ts";
import { TranscriptionResult } from "./transcription.ts";
import { DetailedTranscriptionResult } from "./transcription-detail.ts";
import { VideoOverviewParams } from "./video-overview-params.ts";

/**
 * The task-kind table, the one place a kind's wire contract is declared: every asynchronous operation
 * is a task of one kind, shared by the Worker, the Durable Objects and the nodes: its `workClass` (the
 * capacity it draws on), `params` (stored with the task, sent with its lease), `completion` (what a node
 * reports when it is done) and `result` (what the stores keep of it). The wire unions (TaskRecord,
 * Lease, CompleteRequest, ContentJob) are derived from it; each layer's behaviour per kind lives in its
 * own registry (worker/tasks/kinds, inference-node/kinds), keyed by the same names.
 */
export const TASK_CONTRACTS = {
  transcribe: {
    workClass: "speech",
    params: TranscribeParams,
    completion: DetailedTranscriptionResult,
    result: TranscriptionResult,
  },
  shorts: {
    workClass: "render",
    params: ShortsParams,
    completion: ContentTaskResult,
    result: ContentTaskResult,
  },
  quiz_video: {
    workClass: "render",
    params: QuizVideoParams,
    completion: ContentTaskResult,
    result: ContentTaskResult,
  },
  slide: {
    workClass: "render",
    params: SlideParams,
    completion: ContentTaskResult,
    result: ContentTaskResult,
  },
  quiz: {
    workClass: "render",
    params: QuizParams,
    completion: QuizResult,
    result: QuizResult,
  },
  study_guide: {
    workClass: "render",
    params: StudyGuideParams,
    completion: StudyGuideResult,
    result: StudyGuideResult,
  },
  flashcards: {
    workClass: "render",
    params: FlashcardsParams,
    completion: ContentTaskResult,
    result: ContentTaskResult,
  },
  mindmap: {
    workClass: "render",
    params: MindMapParams,
    completion: ContentTaskResult,
    result: ContentTaskResult,
  },
  podcast: {
    workClass: "render",
    params: PodcastParams,
    completion: ContentTaskResult,
    result: ContentTaskResult,
  },
  video_overview: {
    workClass: "render",
    params: VideoOverviewParams,
    completion: ContentTaskResult,
    result: ContentTaskResult,
  },
  note_translation: {
    workClass: "render",
    params: NoteTranslationParams,
    completion: NoteTranslationCompletion,
    result: NoteTranslationResult,
  },
} as const;

export type TaskKind = keyof typeof TASK_CONTRACTS;
/** One kind's row of the table, as a type. */
export type TaskContract<K extends TaskKind> = (typeof TASK_CONTRACTS)[K];
export const TASK_KINDS = Object.keys(TASK_CONTRACTS) as [TaskKind, ...TaskKind[]];
export const TaskKind = z.enum(TASK_KINDS);

export type TaskParams<K extends TaskKind = TaskKind> = z.infer<(typeof TASK_CONTRACTS)[K]["params"]>;
export type TaskResult<K extends TaskKind = TaskKind> = z.infer<(typeof TASK_CONTRACTS)[K]["result"]>;
export type TaskCompletion<K extends TaskKind = TaskKind> = z.infer<(typeof TASK_CONTRACTS)[K]["completion"]>;

/**
 * Which capacity a kind draws on: speech recognition and media rendering are capped separately, so a
 * long render never holds back transcriptions and the other way round.
 */
export type WorkClass = "speech" | "render";

export function workClassOf(kind: TaskKind): WorkClass {
  return TASK_CONTRACTS[kind].workClass;
}

/** The kinds of one work class, as a type. */
export type KindOf<C extends WorkClass> = {
  [K in TaskKind]: (typeof TASK_CONTRACTS)[K]["workClass"] extends C ? K : never;
}[TaskKind];

/** The kinds that draw on one capacity. */
export function kindsOf<C extends WorkClass>(workClass: C): KindOf<C>[] {
  return TASK_KINDS.filter((kind): kind is KindOf<C> => workClassOf(kind) === workClass);
}

/** The content kinds: what a content node renders (notes into media). */
export type ContentKind = KindOf<"render">;
export const CONTENT_KINDS = kindsOf("render") as [ContentKind, ...ContentKind[]];

/**
 * One schema per kind of `kinds`, in the table's order, as z.discriminatedUnion takes them: the wire
 * unions are built with it, so a kind added to the table is in each of them. `build` returns the union
 * of the per-kind variants (a mapped type over the table), which keeps each variant's own types.
 */
export function perKind<K extends TaskKind, S>(kinds: readonly K[], build: (kind: K) => S): [S, ...S[]] {
  return kinds.map(build) as [S, ...S[]];
}

/** The one internal life of a task; the speech-to-text API shows it as is (JobStatus). */
export const TASK_STATUSES = ["queued", "processing", "done", "failed"] as const;
export const TaskStatus = z.enum(TASK_STATUSES).meta({ id: "JobStatus" });
export type TaskStatus = z.infer<typeof TaskStatus>;

/** Interactive work (synchronous endpoints) is served ahead of batch work. */
export const LANES = ["interactive", "batch"] as const;
export const Lane = z.enum(LANES);
export type Lane = z.infer<typeof Lane>;

/** Where the node reads a task's media from. */
export const TaskSource = z.discriminatedUnion("type", [
  z.object({ type: z.literal("object"), object_key: z.string() }),
  z.object({ type: z.literal("url"), url: z.url() }),
  z.object({ type: z.literal("none") }),
]);
export type TaskSource = z.infer<typeof TaskSource>;

const recordFields = {
  task_id: z.string(),
  owner_key_id: z.string().nullable(),
  lane: Lane,
  status: TaskStatus,
  source: TaskSource,
  error: z.string().nullable(),
  /** Set with `error` when the task failed. */
  error_code: TaskFailureCode.nullable(),
  /** 0..100; it never goes back, not even when a lost attempt is retried. */
  progress: z.number().min(0).max(100),
  /** What a running task is doing now (content renders report it); null otherwise. */
  step: z.string().nullable(),
  /** The node's estimate of the seconds left, as of its last report; null when it gave none. */
  eta_sec: z.number().min(0).nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
};

/** One kind's record schema, with that kind's params and result. */
type RecordVariant = {
  [K in TaskKind]: z.ZodObject<
    typeof recordFields & {
      kind: z.ZodLiteral<K>;
      params: TaskContract<K>["params"];
      result: z.ZodNullable<TaskContract<K>["result"]>;
    }
  >;
}[TaskKind];

function recordOf(kind: TaskKind): RecordVariant {
  const { params, result } = TASK_CONTRACTS[kind];
  const variant = z.object({ ...recordFields, kind: z.literal(kind), params, result: result.nullable() });
  return variant as unknown as RecordVariant;
}

/**
 * A task as both stores keep it (the D1 `jobs` row has exactly these columns). Times are Unix
 * milliseconds. Told apart by `kind`, so params and result are typed per kind.
 */
export const TaskRecord = z.discriminatedUnion("kind", perKind(TASK_KINDS, recordOf));
export type TaskRecord = z.infer<typeof TaskRecord>;
export type TaskRecordOf<K extends TaskKind> = Extract<TaskRecord, { kind: K }>;

/** The Queue message: only the id and kind travel; the task itself lives in the stores. */
export const TaskMessage = z.object({ task_id: z.string(), kind: TaskKind });
export type TaskMessage = z.infer<typeof TaskMessage>;

/** Where a task stands in the Dispatcher's line; polls show it while the task waits or runs. */
export const QueueStats = z
  .strictObject({
    queued: z.number().int().describe("jobs waiting for a worker slot, whole deployment"),
    processing: z.number().int().describe("jobs decoding now; capped at the concurrency"),
    position: z
      .number()
      .int()
      .nullable()
      .optional()
      .describe("1-based place of this job in the queue; null when no longer waiting"),
    concurrency: z.number().int().describe("MAX_CONCURRENT_TRANSCRIBE_JOBS"),
  })
  .meta({ id: "QueueStats" });
export type QueueStats = z.infer<typeof QueueStats>;
