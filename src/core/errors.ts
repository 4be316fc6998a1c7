/**
 * The one error type. Handlers throw ApiError; `errorResponse` (REST, the MCP endpoint's HTTP
 * refusals) and the MCP tool result render it, so every failure has the contract's shape
 * `{error: {code, message, details?}}`; anything else thrown becomes INTERNAL through `asApiError`.
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
   * A failed action gets its own metric back (core/run-operation.ts), except when this
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

/** The contract's JSON error answer, with the error's own headers (Retry-After…) and the request id. */
export function errorResponse(err: ApiError, requestId: string): Response {
  return new Response(JSON.stringify(err.toBody()), {
    status: err.status,
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId, ...err.headers },
  });
}

/**
 * Any error as the ApiError a client may see: an ApiError as it is; anything else is logged once
 * (with what `where` says: the request id, the operation or path) and answered INTERNAL, never with
 * its internals: the request id lets an operator find the log line.
 */
export function asApiError(err: unknown, where: { requestId: string } & Record<string, unknown>): ApiError {
  if (err instanceof ApiError) return err;
  console.error(JSON.stringify({ level: "error", ...where, error: String(err), stack: (err as Error)?.stack }));
  return new ApiError("INTERNAL", "Internal error", { requestId: where.requestId });
}
