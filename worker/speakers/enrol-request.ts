import { quoted } from "../../protocol/quoted.ts";
import { speakerNameProblem } from "../../protocol/speakers.ts";
import { OpenAIError } from "../openai/errors.ts";
import { decodeAudioDataUrl } from "../openai/known-speakers.ts";
import { type CheckedClip, checkReferenceClip } from "./reference-clip.ts";

/**
 * POST /v1/speakers' body, read and checked: a multipart form with `name` and `file` (the clip), or
 * JSON or a urlencoded form with `name` and `reference` (the clip as a data URL). The body's size is
 * bounded by the route's limit before it is read here.
 */

export interface Enrolment {
  name: string;
  clip: CheckedClip;
}

const refuse = (param: string | null, message: string) =>
  new OpenAIError("bad_request", message, { param, openaiCode: "invalid_value" });

async function readFields(request: Request): Promise<{ name: unknown; file: unknown; reference: unknown }> {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
  try {
    if (type === "application/json") {
      const body = (await request.json()) as Record<string, unknown> | null;
      if (typeof body !== "object" || body === null) throw new TypeError("not an object");
      return { name: body.name, file: undefined, reference: body.reference };
    }
    if (type === "multipart/form-data" || type === "application/x-www-form-urlencoded") {
      const form = await request.formData();
      return { name: form.get("name"), file: form.get("file"), reference: form.get("reference") };
    }
  } catch {
    throw refuse(null, `the body is not a readable ${type}`);
  }
  throw new OpenAIError(
    "unsupported_media_type",
    "send multipart/form-data (name, file), or JSON or a urlencoded form (name, reference as a data URL)",
    { param: null },
  );
}

/**
 * The checked name and clip of an enrolment; OpenAI's 400 naming the field at fault.
 *
 * @example const { name, clip } = await readEnrolment(c.req.raw);
 */
export async function readEnrolment(request: Request): Promise<Enrolment> {
  const fields = await readFields(request);
  if (typeof fields.name !== "string") throw refuse("name", "name is required: the speaker's name");
  const name = fields.name.trim();
  const problem = speakerNameProblem(name);
  if (problem) throw refuse("name", `${quoted(name)} cannot name a speaker: ${problem}`);
  if (fields.file instanceof File) {
    return { name, clip: checkReferenceClip(new Uint8Array(await fields.file.arrayBuffer()), "file") };
  }
  if (typeof fields.reference === "string") {
    const { bytes } = decodeAudioDataUrl(fields.reference, "reference", "reference");
    return { name, clip: checkReferenceClip(bytes, "reference") };
  }
  throw refuse("file", "send the reference clip as file (multipart) or reference (a data URL)");
}
