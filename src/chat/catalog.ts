import type { Env } from "../env";
import { ApiError } from "../core/errors";

/**
 * The fixed room catalog (data/assets/catalog/chat-rooms.json). Clients cannot create rooms, so
 * every room that can exist is known here; a slug that is not in this list is a 404 before any
 * Durable Object is touched (an unknown slug never creates storage).
 *
 * Read once per isolate from the static assets on the first chat request rather than bundled: the
 * script every isolate parses before its first answer stays smaller (some 3 KiB of its gzip), and
 * most isolates never serve a chat request.
 */
export interface RoomDef {
  slug: string;
  name: string;
  description: string;
  tags: string[];
  category: string;
}
export interface CategoryDef {
  slug: string;
  name: string;
  description: string;
  rooms: RoomDef[];
}
export interface Catalog {
  categories: readonly CategoryDef[];
  /** Every room in catalog order (category order, then room order within it). */
  rooms: readonly RoomDef[];
  room(slug: string): RoomDef | undefined;
  category(slug: string): CategoryDef | undefined;
}

interface CatalogFile {
  categories: { slug: string; name: string; description: string; rooms: Omit<RoomDef, "category">[] }[];
}

const ASSET_URL = "https://assets.lore.internal/catalog/chat-rooms.json";
let loaded: Promise<Catalog> | null = null;

/** The catalog as `data` holds it (the asset's JSON), with the lookups the operations use. */
export function catalogFrom(data: CatalogFile): Catalog {
  const categories: CategoryDef[] = data.categories.map((c) => ({
    slug: c.slug,
    name: c.name,
    description: c.description,
    rooms: c.rooms.map((r) => ({ ...r, category: c.slug })),
  }));
  const rooms = categories.flatMap((c) => c.rooms);
  const bySlug = new Map(rooms.map((r) => [r.slug, r]));
  const categoryBySlug = new Map(categories.map((c) => [c.slug, c]));
  return { categories, rooms, room: (s) => bySlug.get(s), category: (s) => categoryBySlug.get(s) };
}

/** The catalog, read from the static assets once per isolate (a failed read is tried again by the next request). */
export function chatCatalog(env: Env): Promise<Catalog> {
  loaded ??= (async () => {
    const res = await env.ASSETS.fetch(ASSET_URL);
    if (!res.ok) throw new ApiError("INTERNAL", "The chat room catalog is not deployed with this build (static assets).");
    return catalogFrom((await res.json()) as CatalogFile);
  })().catch((e) => {
    loaded = null;
    throw e;
  });
  return loaded;
}

/** The lounge: the catch-all room. */
export const LOUNGE = "general";
