// The fixed default application name; a value saved in Settings wins (getSystemConfig, docs/rules.md).
export const APP_NAME = "Admin Dashboard";
