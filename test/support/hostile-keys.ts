import { expect } from "vitest";

// Prototype pollution for tests (docs/SECURITY-PLAYBOOK §2, issue 34): the keys and paths a
// polluter sends, and the check that no built-in prototype gained a property. A key named
// `__proto__` can only be sent as JSON text (in an object literal it sets the prototype instead),
// so hostile members are text, spliced into a body where it holds the string "$".

const PROTOTYPES: object[] = [
  Object.prototype,
  Array.prototype,
  String.prototype,
  Number.prototype,
  Boolean.prototype,
  Function.prototype,
];
const original = PROTOTYPES.map((p) => new Set(Reflect.ownKeys(p)));

function added(): [object, PropertyKey][] {
  return PROTOTYPES.flatMap((p, i) =>
    Reflect.ownKeys(p)
      .filter((k) => !original[i]!.has(k))
      .map((k): [object, PropertyKey] => [p, k]),
  );
}

/** Fails when any built-in prototype gained a property (`({}).polluted` and every other name). */
export function expectPrototypesClean(where = "") {
  expect(({} as Record<string, unknown>).polluted, where).toBeUndefined();
  expect(
    added().map(([, k]) => String(k)),
    where,
  ).toEqual([]);
}

/** Removes what a failed test added, so the tests after it run on clean prototypes. */
export function scrubPrototypes() {
  for (const [p, k] of added()) delete (p as Record<PropertyKey, unknown>)[k];
}

/** SCIM PATCH paths that walk into a prototype: plain, nested, filtered and URN-prefixed. */
export const HOSTILE_PATHS = [
  "__proto__.polluted",
  "__proto__",
  "constructor.prototype.polluted",
  "name.__proto__.polluted",
  "name.constructor.prototype.polluted",
  "userName.constructor.prototype.polluted",
  'emails[type eq "work"].__proto__',
  'emails[type eq "work"].__proto__.polluted',
  "members.__proto__.polluted",
  "urn:ietf:params:scim:schemas:core:2.0:User:__proto__.polluted",
  "urn:ietf:params:scim:schemas:core:2.0:Group:constructor.prototype.polluted",
  "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:__proto__.polluted",
  "prototype.polluted",
];

/** JSON values holding a hostile key at some depth, as text. */
export const HOSTILE_MEMBERS = [
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"prototype":{"polluted":"yes"}}',
  '{"__proto__.polluted":"yes"}',
  '{"name.__proto__.polluted":"yes"}',
  '{"urn:ietf:params:scim:schemas:core:2.0:User:__proto__.polluted":"yes"}',
  '[{"value":"x","__proto__":{"polluted":"yes"}}]',
  '{"a":{"b":[{"c":{"d":{"constructor":{"prototype":{"polluted":"yes"}}}}}]}}',
];

/** `template` as JSON text with each hostile member in place of its "$" string. */
export function hostileBodies(template: unknown): string[] {
  const text = JSON.stringify(template);
  return HOSTILE_MEMBERS.map((member) => text.replace('"$"', member));
}
