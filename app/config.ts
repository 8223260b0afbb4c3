// The fixed default application name (the settings issue makes it editable via getSystemConfig).
export const APP_NAME = "Admin Dashboard";
