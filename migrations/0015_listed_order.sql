-- Skills search and the catalog's default order at any size.
-- 1. skills_fts holds listed skills only (a latest version, or Lore's rendered `lore`): a search then
--    counts and ranks its matches in the FTS index alone, with no join to the skills table to leave out a
--    skill whose first publish failed midway. A skill enters the index when its first version lands
--    (the UPDATE that sets latest_version_id) and leaves it if it ever stops being listed.
-- 2. The default order (installs, then the newest, then the name) over listed skills as a partial index,
--    so a list without `q` reads its first page in index order instead of sorting every skill. Its WHERE
--    is the catalog's condition as the service writes it: SQLite uses a partial index only then.
CREATE INDEX `skills_listed_installs_idx` ON `skills` ("installs" desc,"updated_at" desc,`slug`) WHERE latest_version_id IS NOT NULL OR rendered = 1;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `skills_fts_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `skills_fts_au`;
--> statement-breakpoint
DELETE FROM skills_fts WHERE rowid IN (SELECT rowid FROM skills WHERE latest_version_id IS NULL AND rendered = 0);
--> statement-breakpoint
CREATE TRIGGER `skills_fts_ai` AFTER INSERT ON `skills` WHEN new.latest_version_id IS NOT NULL OR new.rendered = 1 BEGIN
  INSERT INTO skills_fts(rowid, skill_id, name, description, tags, body)
  VALUES (new.rowid, new.id, replace(new.slug, '-', ' '), new.description,
          (SELECT group_concat(value, ' ') FROM json_each(new.tags)), new.search_body);
END;
--> statement-breakpoint
-- Delete then insert: the row may be entering the index (its first version) or leaving it.
CREATE TRIGGER `skills_fts_au` AFTER UPDATE OF slug, description, tags, search_body, latest_version_id, rendered ON `skills` BEGIN
  DELETE FROM skills_fts WHERE rowid = old.rowid;
  INSERT INTO skills_fts(rowid, skill_id, name, description, tags, body)
  SELECT new.rowid, new.id, replace(new.slug, '-', ' '), new.description,
         (SELECT group_concat(value, ' ') FROM json_each(new.tags)), new.search_body
   WHERE new.latest_version_id IS NOT NULL OR new.rendered = 1;
END;
