import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: "./platform/schema.ts",
  out: "./migrations",
});
