/**
 * Stable ids from strings: 64-bit FNV-1a as 16 hex digits. Used for alert ids (from the finding
 * key) and Alertmanager fingerprints (from the label set), so both survive restarts and match
 * across instances without storing anything. Not cryptographic; collisions are irrelevant at
 * alert-set sizes.
 */
const OFFSET_BASIS = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;
const encoder = new TextEncoder();

/** FNV-1a 64 of the UTF-8 bytes of `text`, as 16 lowercase hex digits. */
export function hashToHex(text: string): string {
  let hash = OFFSET_BASIS;
  for (const byte of encoder.encode(text)) hash = ((hash ^ BigInt(byte)) * PRIME) & MASK;
  return hash.toString(16).padStart(16, "0");
}

/** The id of the alert for a finding key. */
export function createAlertId(key: string): string {
  return hashToHex(key);
}
