// The server (e2e/server.ts) prepares the database before it listens; nothing else to do here.
export default async function globalSetup() {}
