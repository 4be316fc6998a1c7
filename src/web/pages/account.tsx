import { Hono } from "hono";
import { ApiError } from "../../core/errors";
import { fieldErrors, invoke } from "../../core/invoke";
import { login, logout, signup } from "../../auth";
import { Field, FormError, Banner, type Errors } from "../components";
import { anonymousPage, doneMessage, page, statusOf } from "../render";
import { CLEAR_SESSION_COOKIE, readForm, safeNext, webOp, type FormValues, type WebContext, type WebEnv } from "../web.context";

/** Sign up, log in, log out: the public account pages (mounted at the site root). */
export const accountPages = new Hono<WebEnv>();

/** The account's email, as both forms ask for it (the browser offers the saved username). */
function EmailField({ values, errors }: { values: FormValues; errors: Errors }) {
  return (
    <Field name="email" type="email" label="Email" value={values.email} errors={errors} required autocomplete="username" maxlength={254} />
  );
}

function LoginForm({ values, errors, next }: { values: FormValues; errors: Errors; next: string }) {
  return (
    <form method="post" action="/login" class="card" novalidate>
      <FormError errors={errors} />
      <input type="hidden" name="next" value={next} />
      <EmailField values={values} errors={errors} />
      <Field name="password" type="password" label="Password" errors={errors} required autocomplete="current-password" maxlength={200} />
      <button type="submit">Log in</button>
    </form>
  );
}

function loginPage(c: WebContext, values: FormValues, errors: Errors, status: 200 | 400 | 401 | 403 | 429 = 200) {
  const done = doneMessage(c, { "logged-out": "You are logged out." });
  return page(c, { title: "Log in" }, loginForm(values, errors, values.next ?? c.req.query("next") ?? "", done), status);
}

function loginForm(values: FormValues, errors: Errors, next: string, done: string | null) {
  return (
    <>
      <h1>Log in</h1>
      {done ? <Banner kind="ok">{done}</Banner> : null}
      <LoginForm values={values} errors={errors} next={next} />
      <p>
        No account yet? <a href="/signup">Sign up</a>
      </p>
    </>
  );
}

function signupPage(c: WebContext, values: FormValues, errors: Errors, status: 200 | 400 | 409 | 429 = 200) {
  return page(
    c,
    { title: "Sign up" },
    <>
      <h1>Create your Lore account</h1>
      <p class="muted">One account holds your agents, their keys, your plan and its quotas.</p>
      <form method="post" action="/signup" class="card" novalidate>
        <FormError errors={errors} />
        <EmailField values={values} errors={errors} />
        <Field
          name="password"
          type="password"
          label="Password"
          errors={errors}
          required
          autocomplete="new-password"
          minlength={10}
          maxlength={200}
          hint="10 to 200 characters. A long passphrase is best."
        />
        <button type="submit">Create account</button>
      </form>
      <p>
        Already have an account? <a href="/login">Log in</a>
      </p>
    </>,
    status,
  );
}

/** Sets the session cookie the operation chose (op.headers) and goes on. */
function signedIn(c: WebContext, headers: Record<string, string>, to: string) {
  const res = c.redirect(to, 303);
  for (const [k, v] of Object.entries(headers)) res.headers.append(k, v);
  return res;
}

accountPages.get("/login", (c) => {
  if (c.get("owner")) return c.redirect(safeNext(c.req.query("next")), 303);
  // The plain form (no query: nothing to carry back, no message) is the same for every visitor.
  if (!new URL(c.req.url).search) return anonymousPage(c, "/login", { title: "Log in" }, () => loginForm({}, {}, "", null));
  return loginPage(c, {}, {});
});

accountPages.post("/login", async (c) => {
  const form = await readForm(c);
  const values = { email: form.email ?? "", next: form.next ?? "" };
  try {
    const result = await invoke(login, webOp(c), { body: { email: form.email ?? "", password: form.password ?? "" } });
    return signedIn(c, login.headers!(result), safeNext(form.next));
  } catch (err) {
    if (!(err instanceof ApiError) || !["VALIDATION_FAILED", "UNAUTHENTICATED", "RATE_LIMITED"].includes(err.code)) throw err;
    const errors = err.code === "VALIDATION_FAILED" ? fieldErrors(err) : { _form: err.message };
    const res = loginPage(c, values, errors, statusOf(err) as 400 | 401 | 429);
    for (const [k, v] of Object.entries(err.headers)) res.headers.set(k, v);
    return res;
  }
});

accountPages.get("/signup", (c) => (c.get("owner") ? c.redirect("/dashboard", 303) : signupPage(c, {}, {})));

accountPages.post("/signup", async (c) => {
  const form = await readForm(c);
  try {
    const result = await invoke(signup, webOp(c), { body: { email: form.email ?? "", password: form.password ?? "" } });
    return signedIn(c, signup.headers!(result), "/dashboard?done=welcome");
  } catch (err) {
    if (!(err instanceof ApiError) || !["VALIDATION_FAILED", "CONFLICT"].includes(err.code)) throw err;
    // The only conflict is an email already registered: it belongs next to the email field.
    const errors = err.code === "CONFLICT" ? { email: err.message } : fieldErrors(err);
    return signupPage(c, { email: form.email ?? "" }, errors, statusOf(err) as 400 | 409);
  }
});

accountPages.post("/logout", async (c) => {
  const owner = c.get("owner");
  const res = c.redirect("/login?done=logged-out", 303);
  if (owner) {
    const result = await invoke(logout, webOp(c));
    for (const [k, v] of Object.entries(logout.headers!(result))) res.headers.append(k, v);
  } else {
    res.headers.append("set-cookie", CLEAR_SESSION_COOKIE);
  }
  return res;
});
