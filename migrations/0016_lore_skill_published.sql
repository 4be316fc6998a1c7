-- Lore's own skill `lore` is an ordinary published skill (src/skills/lore-skill.ts): the seed publishes
-- it by the system account, with a version, content-addressed files in R2 and its own scan, like the
-- starter skills. The `rendered` marker that made every read path complete its row per request goes;
-- its row keeps its id, installs and reviews and is listed again once the next seed publishes it.
DROP TRIGGER IF EXISTS `skills_fts_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `skills_fts_au`;
--> statement-breakpoint
DELETE FROM skills_fts WHERE rowid IN (SELECT rowid FROM skills WHERE latest_version_id IS NULL);
--> statement-breakpoint
DROP INDEX `skills_listed_installs_idx`;
--> statement-breakpoint
CREATE INDEX `skills_listed_installs_idx` ON `skills` ("installs" desc,"updated_at" desc,`slug`) WHERE latest_version_id IS NOT NULL;
--> statement-breakpoint
ALTER TABLE `skills` DROP COLUMN `rendered`;
--> statement-breakpoint
CREATE TRIGGER `skills_fts_ai` AFTER INSERT ON `skills` WHEN new.latest_version_id IS NOT NULL BEGIN
  INSERT INTO skills_fts(rowid, skill_id, name, description, tags, body)
  VALUES (new.rowid, new.id, replace(new.slug, '-', ' '), new.description,
          (SELECT group_concat(value, ' ') FROM json_each(new.tags)), new.search_body);
END;
--> statement-breakpoint
-- Delete then insert: the row may be entering the index (its first version) or leaving it.
CREATE TRIGGER `skills_fts_au` AFTER UPDATE OF slug, description, tags, search_body, latest_version_id ON `skills` BEGIN
  DELETE FROM skills_fts WHERE rowid = old.rowid;
  INSERT INTO skills_fts(rowid, skill_id, name, description, tags, body)
  SELECT new.rowid, new.id, replace(new.slug, '-', ' '), new.description,
         (SELECT group_concat(value, ' ') FROM json_each(new.tags)), new.search_body
   WHERE new.latest_version_id IS NOT NULL;
END;
