import { randomBytes } from "node:crypto";
import pg from "pg";

// BENCH_DATABASE_URL=postgres://… runs the bench on a throwaway schema of that database.
async function query(url: string, text: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

export async function benchSchema(url: string) {
  const schema = `bench_${randomBytes(5).toString("hex")}`;
  await query(url, `create schema ${schema}`);
  const u = new URL(url);
  u.searchParams.set("schema", schema);
  return {
    url: u.toString(),
    drop: () =>
      query(url, `drop schema if exists ${schema}_worker cascade; drop schema if exists ${schema} cascade`),
  };
}
