import { expect } from "vitest";
import { answerProblem } from "../../app/api-docs/check-answer";
import type { AppServer } from "../app-server";
import { context, request } from "../helpers";

// A SCIM client for tests: requests as a directory sends them (a bearer token, JSON, no cookie, no
// browser headers) through the whole app (test/app-server.ts), and the directories they need.

export type ScimAnswer = { status: number; headers: Headers; body: Record<string, unknown> };

export function scimClient(app: AppServer, token: string) {
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await app.handle(
      new Request(`http://localhost:3000/scim/v2${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: "application/scim+json",
          ...(body === undefined ? {} : { "Content-Type": "application/scim+json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await res.text();
    if (text) expect(res.headers.get("Content-Type")).toMatch(/^application\/scim\+json/);
    const answer = {
      status: res.status,
      headers: res.headers,
      body: text ? JSON.parse(text) : {},
    } as ScimAnswer;
    // Every answer here is one the API description allows (app/api-docs).
    const url = `/scim/v2${path}`;
    expect(
      answerProblem(method, url, res.status, text ? answer.body : undefined),
      `${method} ${url}`,
    ).toBeNull();
    return answer;
  };
}

export type ScimClient = ReturnType<typeof scimClient>;

/** Where a change made outside a request is audited from. */
export const testOrigin = () => ({ request: request("/dashboard/settings/directory"), context: context() });

export function expectScimError(answer: ScimAnswer, status: number, scimType?: string) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
  expect(answer.body.status).toBe(String(status));
  if (scimType) expect(answer.body.scimType).toBe(scimType);
  expect(typeof answer.body.detail).toBe("string");
}
