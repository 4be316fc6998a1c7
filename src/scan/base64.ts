/**
 * Base64 decoding on its own: the main Worker reads uploaded skill bundles with it
 * (src/skills/bundle.ts) and must not pull the decoders and rules of src/scan/decode.ts in with it.
 */
/** Decodes standard or URL-safe base64 (padding optional); null when it is not base64. */
export function decodeBase64(s: string): Uint8Array | null {
  let b = s.replace(/[\s]/g, "").replace(/-/g, "+").replace(/_/g, "/");
  if (/[^A-Za-z0-9+/=]/.test(b)) return null;
  b = b.replace(/=+$/, "");
  if (b.length % 4 === 1) return null;
  b += "=".repeat((4 - (b.length % 4)) % 4);
  try {
    const bin = atob(b);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}
