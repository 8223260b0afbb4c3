import type { TaskDefinition } from "./definition.server";
import { accessReviewClose } from "./definitions/access-review-close.server";
import { auditExport } from "./definitions/audit-export.server";
import { auditVerify } from "./definitions/audit-verify.server";
import { broadcastEmail } from "./definitions/broadcast-email.server";
import { reportGenerate } from "./definitions/report-generate.server";
import { usersBulk } from "./definitions/users-bulk.server";
import { usersExport } from "./definitions/users-export.server";
import { usersImport } from "./definitions/users-import.server";

// The one list of task types: POST /api/tasks accepts exactly these. Adding a type is one file in
// definitions/ and one line here (docs/extending.md, "Add a task type").
const definitions: TaskDefinition[] = [
  reportGenerate,
  usersExport,
  broadcastEmail,
  auditExport,
  auditVerify,
  usersImport,
  usersBulk,
  accessReviewClose,
] as TaskDefinition[];

export const TASK_REGISTRY: ReadonlyMap<string, TaskDefinition> = new Map(
  definitions.map((d) => [d.type, d]),
);

export function taskDefinition(type: string): TaskDefinition | undefined {
  return TASK_REGISTRY.get(type);
}
