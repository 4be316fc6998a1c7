/**
 * The dashboard's only stylesheet and script, inlined in each page and allowed by their SHA-256 in
 * the Content-Security-Policy: no CDN, no build step, no extra request, and no same-origin file
 * (a published skill's `.js`, say) could ever run as page script, as `'self'` would allow.
 * Inline `style="…"` attributes are not allowed either, so every look comes from a class here.
 */
export const CSS = `
:root{--bg:#f7f7f8;--fg:#18181b;--muted:#5b5b66;--card:#fff;--line:#dedee3;--accent:#3f3fbf;--accent-fg:#fff;--ok:#1c7c4a;--warn:#a15c00;--bad:#b3261e;--code:#f0f0f3;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#121214;--fg:#ececf0;--muted:#a3a3ad;--card:#1b1b1f;--line:#34343b;--accent:#9a9aff;--accent-fg:#121214;--ok:#5fcf8f;--warn:#e5a44a;--bad:#ff8a80;--code:#26262c}}
*{box-sizing:border-box}[hidden]{display:none!important}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--fg)}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
code,pre,kbd{font:14px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--code);padding:.75rem;border-radius:6px;overflow-x:auto;margin:0;white-space:pre-wrap;overflow-wrap:anywhere}
code{background:var(--code);padding:0 .25em;border-radius:4px}
pre code{background:none;padding:0}
h1{font-size:1.6rem;margin:.2rem 0 1rem}h2{font-size:1.2rem;margin:1.5rem 0 .5rem}h3{font-size:1.05rem;margin:0 0 .25rem}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--card);padding:.5rem;z-index:9}
.top{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem;padding:.75rem 1.25rem;background:var(--card);border-bottom:1px solid var(--line)}
.brand{font-weight:700;font-size:1.2rem;text-decoration:none;color:var(--fg)}
.top nav{display:flex;flex-wrap:wrap;gap:.25rem 1rem}.top nav a{text-decoration:none}
.account{margin-left:auto;display:flex;align-items:center;gap:.75rem;flex-wrap:wrap}
.account .who{color:var(--muted);font-size:.9rem;overflow-wrap:anywhere}
.tabs{display:flex;gap:.25rem;overflow-x:auto;padding:0 1.25rem;background:var(--card);border-bottom:1px solid var(--line)}
.tabs a{padding:.6rem .8rem;text-decoration:none;color:var(--muted);border-bottom:3px solid transparent;white-space:nowrap}
.tabs a[aria-current=page]{color:var(--fg);border-color:var(--accent);font-weight:600}
main{max-width:60rem;margin:0 auto;padding:1.25rem}
footer{max-width:60rem;margin:2rem auto;padding:0 1.25rem;color:var(--muted);font-size:.9rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:1rem;margin:0 0 1rem}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(15rem,1fr));margin:0 0 1rem}
.grid .card{margin:0}
.card>h2:first-child,.card>h3:first-child,.card>section>h2:first-child{margin-top:0}
.stack>*+*{margin-top:.75rem}
.plans{grid-template-columns:repeat(auto-fill,minmax(12.5rem,1fr))}
.plans .card{display:flex;flex-direction:column}.plans .card.current{border-color:var(--accent);border-width:2px}
.plans .price{font-size:1.3rem;margin:.25rem 0 .5rem}
.plans dl{margin:0 0 1rem;flex:1}.plans dl div{display:flex;justify-content:space-between;gap:.5rem;border-bottom:1px solid var(--line);padding:.2rem 0;font-size:.9rem}
.plans dt{color:var(--muted)}.plans dd{margin:0;text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.muted{color:var(--muted)}.small{font-size:.875rem}
.row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-start}
.row .field{flex:1 1 12rem;margin:0}
.field{margin:0 0 .9rem}
label{display:block;font-weight:600;margin:0 0 .2rem}
fieldset{border:1px solid var(--line);border-radius:6px;margin:0 0 1rem;padding:.5rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.choice{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.4rem 0}
.choice input{margin-top:.35rem}
input[type=text],input[type=email],input[type=password],input[type=search],select{width:100%;font:inherit;padding:.5rem .6rem;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--fg)}
input[aria-invalid=true]{border-color:var(--bad)}
.hint{margin:.2rem 0 0;color:var(--muted);font-size:.875rem}
.error{margin:.2rem 0 0;color:var(--bad);font-size:.9rem;font-weight:600}
button,.button{display:inline-block;font:inherit;font-weight:600;padding:.5rem .9rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);cursor:pointer;text-decoration:none;line-height:1.3}
button.secondary,.button.secondary{background:transparent;color:var(--accent)}
button.danger{background:var(--bad);border-color:var(--bad);color:#fff}
button.link{background:none;border:0;color:var(--accent);padding:0;font-weight:400;text-decoration:underline}
form.inline{display:inline}
.banner{border-radius:6px;padding:.6rem .9rem;margin:0 0 1rem;border:1px solid}
.banner.ok{border-color:var(--ok);color:var(--ok)}.banner.bad{border-color:var(--bad);color:var(--bad)}.banner.warn{border-color:var(--warn);color:var(--warn)}
details>summary{cursor:pointer;color:var(--accent)}
details[open]>summary{margin-bottom:.5rem}
.table{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.95rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr.current{background:var(--code)}
.badge{display:inline-block;font-size:.8rem;padding:0 .45rem;border-radius:99px;border:1px solid var(--line);color:var(--muted)}
.badge.ok{border-color:var(--ok);color:var(--ok)}.badge.bad{border-color:var(--bad);color:var(--bad)}.badge.warn{border-color:var(--warn);color:var(--warn)}
.keybox{display:flex;gap:.5rem;align-items:flex-start}.keybox pre{flex:1;min-width:0}
.meter{display:block;width:100%;height:10px;margin:.3rem 0 0}
.meter .track{fill:var(--code)}.meter .fill{fill:var(--accent)}.meter .fill.high{fill:var(--warn)}.meter .fill.full{fill:var(--bad)}
.metric{margin:0 0 .8rem}.metric .line{display:flex;justify-content:space-between;gap:1rem;flex-wrap:wrap}
.chart{width:100%;max-width:40rem;height:auto;display:block}
.chart .bar{fill:var(--accent)}.chart .axis{stroke:var(--line)}.chart .limit{stroke:var(--bad);stroke-dasharray:4 3}
.chart text{fill:var(--muted);font-size:11px}
.pick{display:flex;flex-wrap:wrap;gap:.25rem .75rem;margin:0 0 .5rem}.pick a[aria-current=true]{font-weight:700;color:var(--fg)}
.hero{padding:1rem 0}.hero p{font-size:1.1rem;max-width:40rem}
ul.plain{list-style:none;padding:0;margin:0}ul.plain li{margin:.25rem 0}
.findings li{border-top:1px solid var(--line);padding:.5rem 0}.findings p{margin:.2rem 0}
p code,li code,.digest{overflow-wrap:anywhere}
.checks{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:0 1rem}
input[type=file]{width:100%;max-width:100%;font:inherit}fieldset{min-width:0}fieldset>.hint{margin:0 0 .6rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:40rem){.account .who{display:none}main{padding:1rem .75rem}.top{padding:.6rem .75rem}.tabs{padding:0 .5rem}h1{font-size:1.35rem}.keybox{flex-direction:column}}
`.trim();

/**
 * Progressive enhancement for the copy buttons (hidden until this runs): without JavaScript the
 * text is still there to select by hand.
 */
export const SCRIPT = `
for(const b of document.querySelectorAll("button[data-copy]")){b.hidden=false;const label=b.textContent;const live=document.getElementById("copy-status");
b.addEventListener("click",async()=>{const el=document.getElementById(b.dataset.copy);const text=el.textContent.trim();let msg="Copied";
try{await navigator.clipboard.writeText(text)}catch{const r=document.createRange();r.selectNodeContents(el);const s=getSelection();s.removeAllRanges();s.addRange(r);msg="Selected: press Ctrl+C"}
b.textContent=msg;if(live)live.textContent=msg;setTimeout(()=>{b.textContent=label},2000)})}
`.trim();

async function sha256Base64(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

/**
 * Other origins a dashboard form may lead to. Chromium applies `form-action` to the redirect that
 * answers a form post too, so a payment page reached by a POST → 303 (Stripe Checkout, the billing
 * portal) must be named in the policy of the page whose form it is, exactly. Only the billing page
 * names them, and only under the Stripe provider (it sets `formTargets`); every other page keeps
 * `form-action 'self'`.
 */
export const STRIPE_FORM_TARGETS: readonly string[] = ["https://checkout.stripe.com", "https://billing.stripe.com"];

const policies = new Map<string, Promise<string>>();

/**
 * The pages' Content-Security-Policy: nothing loads but the two hashed inline blocks; forms post
 * only here (and to `formTargets`); no page can be framed; no `<base>` can redirect relative links.
 */
export function contentSecurityPolicy(formTargets: readonly string[] = []): Promise<string> {
  const key = formTargets.join(" ");
  let policy = policies.get(key);
  if (!policy) {
    policy = Promise.all([sha256Base64(CSS), sha256Base64(SCRIPT)]).then(([css, js]) =>
      [
        "default-src 'none'",
        `style-src 'sha256-${css}'`,
        `script-src 'sha256-${js}'`,
        "img-src data:",
        ["form-action 'self'", ...formTargets].join(" "),
        "frame-ancestors 'none'",
        "base-uri 'none'",
      ].join("; "),
    );
    policies.set(key, policy);
  }
  return policy;
}
