import { PAGE_LIMIT } from "./scim-resource";
import { SCIM } from "./scim-schema";

// What a directory reads before it provisions (RFC 7643 §5-§7): what this server supports, its two
// resource types and the attributes it keeps of each.

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [SCIM.config],
    documentationUri: "https://datatracker.ietf.org/doc/html/rfc7644",
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: PAGE_LIMIT },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "Bearer token",
        description: "The directory's token from Settings → Directory (or npm run scim:token).",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
  };
}

export function resourceTypes(baseUrl: string) {
  return [
    {
      schemas: [SCIM.resourceType],
      id: "User",
      name: "User",
      endpoint: "/Users",
      schema: SCIM.user,
      schemaExtensions: [{ schema: SCIM.enterprise, required: false }],
      meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/User` },
    },
    {
      schemas: [SCIM.resourceType],
      id: "Group",
      name: "Group",
      endpoint: "/Groups",
      schema: SCIM.group,
      meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/Group` },
    },
  ];
}

type Attribute = {
  name: string;
  type: "string" | "boolean" | "complex" | "reference";
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: "readOnly" | "readWrite" | "immutable";
  uniqueness?: "none" | "server";
  subAttributes?: Attribute[];
};

function attr(a: Attribute): Record<string, unknown> {
  return {
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: "readWrite",
    returned: "default",
    uniqueness: "none",
    ...a,
    ...(a.subAttributes ? { subAttributes: a.subAttributes.map(attr) } : {}),
  };
}

export function schemas(baseUrl: string) {
  const schema = (id: string, name: string, attributes: Attribute[]) => ({
    schemas: [SCIM.schema],
    id,
    name,
    attributes: attributes.map(attr),
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${id}` },
  });
  return [
    schema(SCIM.user, "User", [
      { name: "userName", type: "string", required: true, uniqueness: "server" },
      {
        name: "name",
        type: "complex",
        subAttributes: [
          { name: "formatted", type: "string" },
          { name: "givenName", type: "string" },
          { name: "familyName", type: "string" },
        ],
      },
      { name: "displayName", type: "string" },
      {
        name: "emails",
        type: "complex",
        multiValued: true,
        subAttributes: [
          { name: "value", type: "string" },
          { name: "type", type: "string" },
          { name: "primary", type: "boolean" },
        ],
      },
      { name: "active", type: "boolean" },
      { name: "externalId", type: "string", caseExact: true },
      {
        name: "groups",
        type: "complex",
        multiValued: true,
        mutability: "readOnly",
        subAttributes: [
          { name: "value", type: "string", mutability: "readOnly" },
          { name: "display", type: "string", mutability: "readOnly" },
        ],
      },
    ]),
    schema(SCIM.enterprise, "EnterpriseUser", [{ name: "department", type: "string" }]),
    schema(SCIM.group, "Group", [
      { name: "displayName", type: "string", required: true, uniqueness: "server" },
      { name: "externalId", type: "string", caseExact: true },
      {
        name: "members",
        type: "complex",
        multiValued: true,
        subAttributes: [
          { name: "value", type: "string", mutability: "immutable" },
          { name: "display", type: "string", mutability: "readOnly" },
        ],
      },
    ]),
  ];
}
