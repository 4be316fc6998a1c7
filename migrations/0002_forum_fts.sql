-- Full-text search for the forum and the knowledge base (SQLite FTS5, bm25 ranking).
-- The FTS rowid is the content table's rowid, so triggers update one row by rowid; queries join
-- on the id column, so a rebuild after an export/import (which renumbers rowids) stays correct:
--   INSERT INTO forum_fts(forum_fts) VALUES('delete-all'); then re-insert from threads (see docs/behaviour-forum.md).
-- Score, status and counter updates do not touch the index: the update triggers fire only on text columns.

CREATE VIRTUAL TABLE `forum_fts` USING fts5(
  thread_id UNINDEXED,
  title,
  body,
  tags,
  posts,
  tokenize = 'porter unicode61 remove_diacritics 2',
  prefix = '2 3'
);
--> statement-breakpoint
CREATE TRIGGER `threads_fts_ai` AFTER INSERT ON `threads` BEGIN
  INSERT INTO forum_fts(rowid, thread_id, title, body, tags, posts)
  VALUES (new.rowid, new.id, new.title, new.body_md,
          (SELECT group_concat(value, ' ') FROM json_each(new.stack_tags)), '');
END;
--> statement-breakpoint
CREATE TRIGGER `threads_fts_au` AFTER UPDATE OF title, body_md, stack_tags ON `threads` BEGIN
  UPDATE forum_fts SET title = new.title, body = new.body_md,
    tags = (SELECT group_concat(value, ' ') FROM json_each(new.stack_tags))
  WHERE rowid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `threads_fts_ad` AFTER DELETE ON `threads` BEGIN
  DELETE FROM forum_fts WHERE rowid = old.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_ai` AFTER INSERT ON `posts` BEGIN
  UPDATE forum_fts SET posts = (SELECT group_concat(body_md, ' ') FROM posts WHERE thread_id = new.thread_id)
  WHERE rowid = (SELECT rowid FROM threads WHERE id = new.thread_id);
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_au` AFTER UPDATE OF body_md ON `posts` BEGIN
  UPDATE forum_fts SET posts = (SELECT group_concat(body_md, ' ') FROM posts WHERE thread_id = new.thread_id)
  WHERE rowid = (SELECT rowid FROM threads WHERE id = new.thread_id);
END;
--> statement-breakpoint
CREATE TRIGGER `posts_fts_ad` AFTER DELETE ON `posts` BEGIN
  UPDATE forum_fts SET posts = coalesce((SELECT group_concat(body_md, ' ') FROM posts WHERE thread_id = old.thread_id), '')
  WHERE rowid = (SELECT rowid FROM threads WHERE id = old.thread_id);
END;
--> statement-breakpoint
CREATE VIRTUAL TABLE `kb_fts` USING fts5(
  entry_id UNINDEXED,
  title,
  summary,
  body,
  tags,
  tokenize = 'porter unicode61 remove_diacritics 2',
  prefix = '2 3'
);
--> statement-breakpoint
CREATE TRIGGER `kb_fts_ai` AFTER INSERT ON `kb_entries` BEGIN
  INSERT INTO kb_fts(rowid, entry_id, title, summary, body, tags)
  VALUES (new.rowid, new.id, new.title, new.summary_md, new.body_md,
          (SELECT group_concat(value, ' ') FROM json_each(new.tags)));
END;
--> statement-breakpoint
CREATE TRIGGER `kb_fts_au` AFTER UPDATE OF title, summary_md, body_md, tags ON `kb_entries` BEGIN
  UPDATE kb_fts SET title = new.title, summary = new.summary_md, body = new.body_md,
    tags = (SELECT group_concat(value, ' ') FROM json_each(new.tags))
  WHERE rowid = new.rowid;
END;
--> statement-breakpoint
CREATE TRIGGER `kb_fts_ad` AFTER DELETE ON `kb_entries` BEGIN
  DELETE FROM kb_fts WHERE rowid = old.rowid;
END;
