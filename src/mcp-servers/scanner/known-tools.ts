/**
 * Tool names of widely used MCP servers (the official reference servers, GitHub, Slack, mail,
 * messaging, shells, browsers, databases, payments), from their published tool lists. They are
 * what an impostor imitates (`read_fi1e`, `send_emaіl` with a Cyrillic і) and what a shadowing
 * description names ("when `send_email` is called, …"). Kept small and in code so the scanner
 * stays pure: the same input always gives the same findings, with or without a database.
 */
export const KNOWN_TOOLS: readonly string[] = [
  // modelcontextprotocol/servers: filesystem, git, fetch, memory, time, sequential thinking, everything
  "read_file", "read_text_file", "read_media_file", "read_multiple_files", "write_file", "edit_file", "create_directory",
  "list_directory", "list_directory_with_sizes", "directory_tree", "move_file", "search_files", "get_file_info",
  "list_allowed_directories", "git_status", "git_diff", "git_diff_staged", "git_diff_unstaged", "git_commit", "git_add",
  "git_reset", "git_log", "git_create_branch", "git_checkout", "git_show", "git_branch", "fetch", "create_entities",
  "create_relations", "add_observations", "delete_entities", "delete_observations", "delete_relations", "read_graph",
  "search_nodes", "open_nodes", "get_current_time", "convert_time", "sequentialthinking", "get-env", "get-sum",
  // GitHub
  "get_me", "get_file_contents", "create_or_update_file", "push_files", "create_repository", "fork_repository",
  "create_branch", "list_commits", "get_commit", "search_repositories", "search_code", "search_issues", "search_users",
  "create_issue", "get_issue", "update_issue", "list_issues", "add_issue_comment", "issue_read", "issue_write",
  "create_pull_request", "get_pull_request", "list_pull_requests", "merge_pull_request", "update_pull_request",
  "create_pull_request_review", "get_pull_request_files", "pull_request_read", "list_notifications",
  // Slack, mail, messaging
  "slack_list_channels", "slack_post_message", "slack_reply_to_thread", "slack_add_reaction", "slack_get_channel_history",
  "slack_get_thread_replies", "slack_get_users", "slack_get_user_profile", "send_email", "read_email", "search_emails",
  "draft_email", "delete_email", "forward_email", "reply_email", "list_emails", "modify_email", "send_message",
  "list_chats", "list_messages", "get_chat", "search_contacts", "send_file", "send_sms",
  // shells and desktops
  "execute_command", "run_command", "run_terminal_cmd", "execute_shell_command", "start_process", "interact_with_process",
  "read_process_output", "kill_process", "list_processes", "force_terminate", "list_sessions", "search_code", "edit_block",
  "set_config_value", "get_config",
  // browsers
  "browser_navigate", "browser_navigate_back", "browser_click", "browser_type", "browser_snapshot", "browser_take_screenshot",
  "browser_evaluate", "browser_file_upload", "browser_fill_form", "browser_press_key", "browser_select_option",
  "browser_hover", "browser_drag", "browser_tabs", "browser_close", "browser_wait_for", "browser_handle_dialog",
  "browser_console_messages", "browser_network_requests", "puppeteer_navigate", "puppeteer_screenshot", "puppeteer_click",
  "puppeteer_fill", "puppeteer_evaluate", "navigate_page", "take_screenshot", "take_snapshot", "evaluate_script",
  // databases, clouds, payments, search, docs
  "query", "execute_sql", "run_sql", "run_query", "list_tables", "describe_table", "apply_migration", "list_databases",
  "create_customer", "create_payment_link", "create_refund", "create_invoice", "list_customers", "retrieve_balance",
  "brave_web_search", "brave_local_search", "web_search", "web_search_exa", "firecrawl_scrape", "firecrawl_search",
  "tavily_search", "resolve-library-id", "get-library-docs", "query-docs", "gdrive_search", "gdrive_read_file",
  "create_page", "update_page", "search_documentation",
];

/** Case and separators folded (`get-library-docs`, `get_library_docs`, `getLibraryDocs` are one name). */
export const normalizeToolName = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[\s.-]+/g, "_");

export const KNOWN_TOOL_SET: ReadonlySet<string> = new Set(KNOWN_TOOLS.map(normalizeToolName));
