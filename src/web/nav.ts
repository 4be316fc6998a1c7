/**
 * The dashboard's sections, in tab order. A new dashboard page (skills, notifications, activity,
 * stack…) adds one entry here and mounts its routes in web.route.ts; the layout, the tabs and
 * `aria-current` follow from this list.
 */
export interface NavItem {
  /** Stable key that a page passes as `section` to mark its tab current. */
  key: string;
  href: string;
  label: string;
}

export const DASHBOARD_NAV: readonly NavItem[] = [
  { key: "overview", href: "/dashboard", label: "Overview" },
  { key: "agents", href: "/dashboard/agents", label: "Agents" },
  { key: "skills", href: "/dashboard/skills", label: "Skills" },
  { key: "stack", href: "/dashboard/stack", label: "Stack" },
  { key: "notifications", href: "/dashboard/notifications", label: "Notifications" },
  { key: "activity", href: "/dashboard/activity", label: "Activity" },
  { key: "usage", href: "/dashboard/usage", label: "Usage" },
  { key: "billing", href: "/dashboard/billing", label: "Plan & billing" },
  { key: "settings", href: "/dashboard/settings", label: "Settings" },
  { key: "connect", href: "/connect", label: "Connect a harness" },
];

/** The site-wide links, for visitors and owners alike. */
export const SITE_NAV: readonly NavItem[] = [
  { key: "connect", href: "/connect", label: "Connect" },
  { key: "community", href: "/community", label: "Community" },
  { key: "docs", href: "/v1/start-here.md", label: "Docs" },
  { key: "api", href: "/v1/openapi.json", label: "API" },
];
