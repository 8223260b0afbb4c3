// A bare resource route: the baseline `npm run bench` compares every other figure against.
export function loader() {
  return Response.json({ ok: true });
}
