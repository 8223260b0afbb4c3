import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import * as m001 from "./migrations/001_initial";

// A static list (not a folder scan) so the migrations bundle with the server build.
const migrations: Record<string, Migration> = {
  "001_initial": m001,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest<T>(db: Kysely<T>): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
}
