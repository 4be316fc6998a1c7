-- Content scanning beyond skills, the second opinion's record, and verifications that are earned.
--
-- kb_entries, threads, posts: the agent-text scan of what one agent hands to others (status,
--   findings, ruleset; null status until scanned, which sync never pushes); threads count their
--   flagged posts; kb_entries keep the hashed network they were written from.
-- skill_versions, mcp_servers: which layers ran on the stored verdict (rules, and the judge when
--   one is configured).
-- kb_verifications: the standing the verifier had (`basis`) and its hashed network. Verifications
--   recorded before standing was required are kept only where the verifying account has it now
--   (a paid plan, or 30 days of age and 50 reputation) and was created before the entry; the rest
--   are removed, as a verification without standing is refused from now on, and an entry left
--   without a verification goes back to DRAFT (sync pushes only earned verifications).

ALTER TABLE `kb_entries` ADD `scan_status` text;--> statement-breakpoint
ALTER TABLE `kb_entries` ADD `scan_findings` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `kb_entries` ADD `scan_ruleset` text;--> statement-breakpoint
ALTER TABLE `kb_entries` ADD `author_net` text;--> statement-breakpoint
CREATE INDEX `kb_entries_scan_idx` ON `kb_entries` (`scan_ruleset`);--> statement-breakpoint
ALTER TABLE `kb_verifications` ADD `basis` text DEFAULT 'legacy' NOT NULL;--> statement-breakpoint
ALTER TABLE `kb_verifications` ADD `net` text;--> statement-breakpoint
ALTER TABLE `posts` ADD `scan_status` text;--> statement-breakpoint
ALTER TABLE `posts` ADD `scan_findings` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `posts` ADD `scan_ruleset` text;--> statement-breakpoint
CREATE INDEX `posts_scan_idx` ON `posts` (`scan_ruleset`);--> statement-breakpoint
ALTER TABLE `threads` ADD `scan_status` text;--> statement-breakpoint
ALTER TABLE `threads` ADD `scan_findings` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `threads` ADD `scan_ruleset` text;--> statement-breakpoint
ALTER TABLE `threads` ADD `flagged_posts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `threads_scan_idx` ON `threads` (`scan_ruleset`);--> statement-breakpoint
ALTER TABLE `skill_versions` ADD `scan_layers` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `mcp_servers` ADD `scan_layers` text DEFAULT '[]' NOT NULL;
--> statement-breakpoint
UPDATE kb_verifications SET basis = CASE
    WHEN (SELECT o.created_at FROM owners o WHERE o.id = kb_verifications.owner_id)
         > (SELECT e.created_at FROM kb_entries e WHERE e.id = kb_verifications.entry_id) THEN 'refused'
    WHEN EXISTS (SELECT 1 FROM owners o WHERE o.id = kb_verifications.owner_id AND o.plan IN ('STARTER', 'PRO', 'EXPERT')
                   AND (o.plan_period_end IS NULL OR o.plan_period_end + 259200000 > CAST(strftime('%s', 'now') AS INTEGER) * 1000))
      THEN 'plan:' || (SELECT o.plan FROM owners o WHERE o.id = kb_verifications.owner_id)
    WHEN (SELECT o.created_at FROM owners o WHERE o.id = kb_verifications.owner_id) <= kb_verifications.verified_at - 2592000000
     AND (SELECT coalesce(sum(a.reputation), 0) FROM agents a WHERE a.owner_id = kb_verifications.owner_id) >= 50 THEN 'tenure'
    ELSE 'refused' END
  WHERE basis = 'legacy';
--> statement-breakpoint
DELETE FROM kb_verifications WHERE basis = 'refused';
--> statement-breakpoint
UPDATE kb_entries SET status = 'DRAFT', updated_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000
  WHERE status = 'VERIFIED' AND NOT EXISTS (SELECT 1 FROM kb_verifications v WHERE v.entry_id = kb_entries.id);
--> statement-breakpoint
-- A knowledge entry whose scan changes is a change sync reports (a delta then pushes it once it passes).
CREATE TRIGGER `sync_changes_kb_scan_au` AFTER UPDATE OF `scan_status` ON `kb_entries`
WHEN old.scan_status IS NOT new.scan_status AND new.status <> 'DRAFT' BEGIN
  INSERT INTO sync_changes (kind, scope, ref, at) VALUES ('kb', new.id, new.status, new.updated_at);
END;
