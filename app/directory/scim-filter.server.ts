import { type RawBuilder, sql } from "kysely";
import { type Filter, parse } from "scim2-parse-filter";
import { likeLiteral } from "../../db/like";
import { ScimError } from "./scim-error";

// SCIM filters (RFC 7644 §3.4.2.2) as SQL: the expression is parsed by scim2-parse-filter and each
// comparison becomes a condition on a column this server keeps; attribute names are
// case-insensitive and may carry their schema's URN. Strings compare case-insensitively, as
// userName, emails and displayName are caseExact=false; ids and externalId exactly.

type FilterAttribute =
  /** `storedLower`: the column is kept in lower case (email), so eq compares it as it is, on its index. */
  | { kind: "text"; column: string; caseExact?: boolean; storedLower?: boolean }
  | { kind: "status"; column: string }
  | { kind: "time"; column: string };

export type FilterAttributes = Record<string, FilterAttribute>;

const URN_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(user|group):/i;

function attributeOf(attributes: FilterAttributes, path: string): FilterAttribute {
  const name = path.replace(URN_PREFIX, "").toLowerCase();
  const attribute = Object.hasOwn(attributes, name) ? attributes[name] : undefined;
  if (!attribute) throw new ScimError(400, `Filtering on "${path}" is not supported.`, "invalidFilter");
  return attribute;
}

function likePattern(value: string, op: "co" | "sw" | "ew") {
  const escaped = likeLiteral(value.toLowerCase());
  return op === "co" ? `%${escaped}%` : op === "sw" ? `${escaped}%` : `%${escaped}`;
}

function compare(attribute: FilterAttribute, op: string, value: unknown): RawBuilder<boolean> {
  const column = sql.ref(attribute.column);
  if (attribute.kind === "status") {
    if (typeof value !== "boolean" || (op !== "eq" && op !== "ne"))
      throw new ScimError(400, "active compares only with eq or ne and true or false.", "invalidFilter");
    const active = op === "eq" ? value : !value;
    return sql<boolean>`${column} = ${active ? "active" : "disabled"}`;
  }
  if (typeof value !== "string")
    throw new ScimError(400, "This attribute compares only with a string.", "invalidFilter");
  const exact = attribute.kind === "time" || attribute.caseExact;
  const lowered = attribute.kind === "text" && attribute.storedLower;
  const left = exact || lowered ? column : sql`lower(${column})`;
  const right = exact ? value : value.toLowerCase();
  switch (op) {
    case "eq":
      return sql<boolean>`${left} = ${right}`;
    case "ne":
      return sql<boolean>`(${column} is null or ${left} <> ${right})`;
    case "co":
    case "sw":
    case "ew":
      return sql<boolean>`lower(${column}) like ${likePattern(value, op)} escape '\\'`;
    case "gt":
      return sql<boolean>`${left} > ${right}`;
    case "ge":
      return sql<boolean>`${left} >= ${right}`;
    case "lt":
      return sql<boolean>`${left} < ${right}`;
    case "le":
      return sql<boolean>`${left} <= ${right}`;
    default:
      throw new ScimError(400, `Unknown operator "${op}".`, "invalidFilter");
  }
}

function toSql(filter: Filter, attributes: FilterAttributes, prefix = ""): RawBuilder<boolean> {
  switch (filter.op) {
    case "and":
    case "or":
      return sql<boolean>`(${sql.join(
        filter.filters.map((f) => toSql(f, attributes, prefix)),
        sql.raw(` ${filter.op} `),
      )})`;
    case "not":
      return sql<boolean>`not (${toSql(filter.filter, attributes, prefix)})`;
    case "[]":
      // emails[value eq "x"]: the inner attributes are the multi-valued attribute's sub-attributes.
      return toSql(filter.valFilter, attributes, `${filter.attrPath}.`);
    case "pr": {
      const attribute = attributeOf(attributes, prefix + filter.attrPath);
      const column = sql.ref(attribute.column);
      return sql<boolean>`(${column} is not null and ${column} <> '')`;
    }
    default:
      return compare(attributeOf(attributes, prefix + filter.attrPath), filter.op, filter.compValue);
  }
}

/** The filter as a SQL condition; a 400 invalidFilter for what cannot be parsed or is not kept. */
export function filterCondition(expression: string, attributes: FilterAttributes): RawBuilder<boolean> {
  if (expression.length > 2000) throw new ScimError(400, "The filter is too long.", "invalidFilter");
  let filter: Filter;
  try {
    filter = parse(expression);
  } catch (error) {
    throw new ScimError(400, `The filter cannot be read: ${(error as Error).message}`, "invalidFilter");
  }
  return toSql(filter, attributes);
}
