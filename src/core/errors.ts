/**
 * The one error type. Handlers throw ApiError; only app.onError (REST) and the MCP adapter render it,
 * so every failure has the contract's shape `{error: {code, message, details?}}`.
 */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

export class ApiError extends Error {
  readonly status: number;
  /** Extra response headers (Retry-After on 429s, for example). */
  readonly headers: Record<string, string>;
  /**
   * A failed action gets its own metric back (core/rest.ts, core/mcp-tools.ts), except when this
   * is set (`keepsQuota`): a refusal of something only a client forging input can send (an altered
   * sync cursor), so that failing on purpose is never a way to get work for free.
   */
  keepsQuota = false;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details ? { details: this.details } : {}),
      },
    };
  }
}

export const notFound = (what: string) => new ApiError("NOT_FOUND", `${what} not found`);
export const forbidden = (why: string) => new ApiError("FORBIDDEN", why);
export const conflict = (why: string, details?: Record<string, unknown>) => new ApiError("CONFLICT", why, details);
export const badRequest = (message: string, path: (string | number)[] = []) =>
  new ApiError("VALIDATION_FAILED", message, { issues: [{ path: path.join("."), message }] });

/** Converts zod issues to the `details.issues` list of DESIGN.md §3. */
export function validationError(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>, where?: string): ApiError {
  const list = issues.map((i) => ({
    path: [where, ...i.path.map(String)].filter(Boolean).join("."),
    message: i.message,
  }));
  const first = list[0];
  const summary = first ? `${first.path || "input"}: ${first.message}` : "invalid input";
  return new ApiError("VALIDATION_FAILED", `Validation failed: ${summary}`, { issues: list });
}

/** The error, marked to keep the quota the request reserved (see ApiError.keepsQuota). */
export function keepingQuota(err: ApiError): ApiError {
  err.keepsQuota = true;
  return err;
}
