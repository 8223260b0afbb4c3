// The stock resource route: a loader returning JSON.
export function loader() {
  return Response.json({ ok: true });
}
