import { signal } from "@preact/signals";

/**
 * Jobs this browser started and has not opened yet, kept in localStorage so a reload (or a closed tab)
 * picks them up again: the transcribe page shows each one's live status until it is opened.
 */
export interface OpenJob {
  task_id: string;
  /** What the user gave: a file name or a URL. */
  source: string;
  /** Length of the audio in seconds when the browser could read it (uploads), for the ETA. */
  duration_sec: number | null;
  /** Unix ms when it was enqueued. */
  started_at: number;
}

const STORAGE_KEY = "voxedge.openJobs";

function read(): OpenJob[] {
  try {
    const parsed = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "[]") as unknown;
    return Array.isArray(parsed)
      ? (parsed as OpenJob[]).filter((job) => typeof job?.task_id === "string")
      : [];
  } catch {
    return [];
  }
}

export const openJobs = signal<OpenJob[]>(read());

function save(jobs: OpenJob[]): void {
  openJobs.value = jobs;
  localStorage.setItem(STORAGE_KEY, JSON.stringify(jobs));
}

export function addOpenJob(job: OpenJob): void {
  save([job, ...openJobs.value.filter((j) => j.task_id !== job.task_id)]);
}

export function removeOpenJob(taskId: string): void {
  if (openJobs.value.some((j) => j.task_id === taskId))
    save(openJobs.value.filter((j) => j.task_id !== taskId));
}

export function findOpenJob(taskId: string): OpenJob | undefined {
  return openJobs.value.find((j) => j.task_id === taskId);
}

// Another tab of the console changed the list.
addEventListener("storage", (event) => {
  if (event.key === STORAGE_KEY || event.key === null) openJobs.value = read();
});
