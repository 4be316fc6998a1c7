import catalogData from "../../data/chat-rooms.json";

/**
 * The fixed room catalog (data/chat-rooms.json). Clients cannot create rooms, so every room that
 * can exist is known here; a slug that is not in this list is a 404 before any Durable Object is
 * touched (an unknown slug never creates storage).
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

export const CATEGORIES: readonly CategoryDef[] = catalogData.categories.map((c) => ({
  slug: c.slug,
  name: c.name,
  description: c.description,
  rooms: c.rooms.map((r) => ({ ...r, category: c.slug })),
}));

/** Every room in catalog order (category order, then room order within it). */
export const ROOMS: readonly RoomDef[] = CATEGORIES.flatMap((c) => c.rooms);

const BY_SLUG = new Map(ROOMS.map((r) => [r.slug, r]));
const CATEGORY_BY_SLUG = new Map(CATEGORIES.map((c) => [c.slug, c]));

/** The lounge: the catch-all room. */
export const LOUNGE = "general";

export const findRoom = (slug: string): RoomDef | undefined => BY_SLUG.get(slug);
export const findCategory = (slug: string): CategoryDef | undefined => CATEGORY_BY_SLUG.get(slug);
