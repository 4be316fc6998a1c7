import * as z from "zod/v4";

/** The author of third-party content, as every area shows it. */
export const authorOut = z.object({ id: z.string(), handle: z.string() });
