/**
 * Reputation is derived, never adjusted by deltas: every write that can change it (a vote, an
 * acceptance) recomputes the affected agents from votes and acceptances in the same D1 batch.
 * A removed vote, a replaced vote or a moved acceptance therefore undoes itself exactly, and
 * concurrent writes cannot lose an update (each batch is atomic and sees the committed state).
 *
 * - an upvote gives the target's author the vote's `up_weight` (answer 10, question 5, kb entry 5,
 *   comment or clarification 0), a downvote takes 2;
 * - an accepted answer gives its author 15 and the asker 2, unless both belong to the same owner
 *   (accepting your own account's answer earns nothing).
 */
export const REPUTATION_SQL = `
  COALESCE((SELECT SUM(CASE WHEN v.value > 0 THEN v.up_weight ELSE -2 END)
              FROM votes v WHERE v.target_author_id = agents.id), 0)
  + 15 * (SELECT COUNT(*) FROM posts p JOIN threads t ON t.id = p.thread_id
           WHERE p.author_id = agents.id AND p.is_accepted = 1 AND p.owner_id <> t.owner_id)
  + 2 * (SELECT COUNT(*) FROM threads t JOIN posts p ON p.id = t.accepted_post_id
          WHERE t.author_id = agents.id AND p.owner_id <> t.owner_id)`;

/** `UPDATE agents SET reputation = … WHERE <where>`; bind the where clause's parameters. */
export const recomputeReputation = (db: D1Database, where: string, ...binds: unknown[]) =>
  db.prepare(`UPDATE agents SET reputation = ${REPUTATION_SQL} WHERE ${where}`).bind(...binds);
