import pg from "pg";

// BENCH_DATABASE_URL=postgres://…/db runs the bench on databases of its own on that server; its role needs CREATEDB.

export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: withoutSchema(url) });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

function withoutSchema(url: string): string {
  const u = new URL(url);
  u.searchParams.delete("schema");
  return u.toString();
}

export function databaseUrl(url: string, name: string): string {
  const u = new URL(withoutSchema(url));
  u.pathname = `/${name}`;
  return u.toString();
}

const ident = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  return name;
};

/** A template copy is seconds where seeding takes minutes; a template busy with another copy is retried. */
export async function createDatabase(url: string, name: string, template?: string) {
  const text = `create database ${ident(name)}${template ? ` template ${ident(template)}` : ""}`;
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(url, text);
      return;
    } catch (error) {
      const busy = /being accessed by other users/.test((error as Error).message);
      if (!busy || attempt >= 30) throw error;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

export async function dropDatabase(url: string, name: string) {
  await adminQuery(url, `drop database if exists ${ident(name)} with (force)`);
}

export async function renameDatabase(url: string, from: string, to: string) {
  await adminQuery(url, `alter database ${ident(from)} rename to ${ident(to)}`);
}

/** The cache keeps when and how long seeding took in the comment; null when the database does not exist. */
export async function databaseComment(url: string, name: string): Promise<string | null | undefined> {
  const rows = await adminQuery<{ comment: string | null }>(
    url,
    "select shobj_description(oid, 'pg_database') as comment from pg_database where datname = $1",
    [name],
  );
  return rows.length ? rows[0]!.comment : undefined;
}

export async function setDatabaseComment(url: string, name: string, comment: string) {
  await adminQuery(url, `comment on database ${ident(name)} is '${comment.replaceAll("'", "''")}'`);
}

export async function databasesLike(url: string, prefix: string): Promise<string[]> {
  const rows = await adminQuery<{ datname: string }>(
    url,
    "select datname from pg_database where starts_with(datname, $1)",
    [prefix],
  );
  return rows.map((r) => r.datname);
}
