// Where the SCIM service lives; the route table mounts it here (app/routes/scim.v2.$.ts).
export const SCIM_ROOT = "/scim/v2";
